package dev.sgm.transport.grpc;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.HistoryTck;

/** The HistoryTck suite over gRPC against a real server on loopback. */
class GrpcHistoryTest extends HistoryTck {
  @Override
  protected SgmClient client() {
    try {
      return GrpcServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
