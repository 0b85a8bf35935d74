package dev.sgm.transport.grpc;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.ChangesTck;

/** The change feed suite over gRPC against a real server on loopback. */
class GrpcChangesTest extends ChangesTck {
  @Override
  protected SgmClient client() {
    try {
      return GrpcServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
