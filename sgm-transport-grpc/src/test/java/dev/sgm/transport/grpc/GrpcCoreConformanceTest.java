package dev.sgm.transport.grpc;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CoreConformanceTck;

/** The CoreConformanceTck suite over gRPC against a real server on loopback. */
class GrpcCoreConformanceTest extends CoreConformanceTck {
  @Override
  protected SgmClient client() {
    try {
      return GrpcServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
