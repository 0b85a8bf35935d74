package dev.sgm.transport.grpc;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.SecretsTck;

/** The secrets suite over gRPC against a real server on loopback. */
class GrpcSecretsTest extends SecretsTck {
  @Override
  protected SgmClient client() {
    try {
      return GrpcServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
