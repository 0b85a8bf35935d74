package dev.sgm.transport.grpc;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.RelevanceTck;

/** The RelevanceTck suite over gRPC against a real server on loopback. */
class GrpcRelevanceTest extends RelevanceTck {
  @Override
  protected SgmClient client() {
    try {
      return GrpcServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
