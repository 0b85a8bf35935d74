package dev.sgm.transport.grpc;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.AuthorizationPropertyTck;
import java.time.Duration;

/**
 * The kit's authorization property over Grpc: random principals, made with tokens.create by a
 * bootstrap owner, each calling through its own token.
 */
class GrpcAuthorizationPropertyTest extends AuthorizationPropertyTck {
  private static final String OWNER = "authorization-property-token-0123456789abcdef";
  private static GrpcServers.Running server;

  private static synchronized GrpcServers.Running server() throws Exception {
    if (server == null) {
      server = GrpcServers.start("auth.token", OWNER);
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }
    return server;
  }

  @Override
  protected SgmClient client() {
    try {
      return new SgmGrpcClient(
          server().transport().endpoints().get(0), Duration.ofSeconds(30), OWNER);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected SgmClient clientWithToken(String token) {
    try {
      return new SgmGrpcClient(
          server().transport().endpoints().get(0), Duration.ofSeconds(30), token);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
