package dev.sgm.transport.grpc;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CoreConformanceTck;
import java.time.Duration;

/**
 * C1–C12 over Grpc with authentication on: the suite presents a bootstrap token, and every request
 * passes the engine's grant checks on its way.
 */
class GrpcAuthConformanceTest extends CoreConformanceTck {
  private static final String TOKEN = "conformance-bootstrap-token-0123456789abcdef";
  private static GrpcServers.Running server;

  private static synchronized GrpcServers.Running server() throws Exception {
    if (server == null) {
      server = GrpcServers.start("auth.token", TOKEN);
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }
    return server;
  }

  @Override
  protected SgmClient client() {
    try {
      return new SgmGrpcClient(
          server().transport().endpoints().get(0), Duration.ofSeconds(30), TOKEN);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
