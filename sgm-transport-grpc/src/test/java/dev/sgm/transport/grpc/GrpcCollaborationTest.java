package dev.sgm.transport.grpc;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CollaborationTck;

/** The CollaborationTck suite over gRPC against a real server on loopback. */
class GrpcCollaborationTest extends CollaborationTck {
  @Override
  protected SgmClient client() {
    try {
      return GrpcServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
