package dev.sgm.transport.grpc;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CodeTck;

/** The CodeTck suite over gRPC against a real server on loopback. */
class GrpcCodeTest extends CodeTck {
  @Override
  protected SgmClient client() {
    try {
      return GrpcServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
