package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.AuthorizationPropertyTck;
import java.time.Duration;

/**
 * The kit's authorization property over Http: random principals, made with tokens.create by a
 * bootstrap owner, each calling through its own token.
 */
class HttpAuthorizationPropertyTest extends AuthorizationPropertyTck {
  private static final String OWNER = "authorization-property-token-0123456789abcdef";
  private static HttpServers.Running server;

  private static synchronized HttpServers.Running server() throws Exception {
    if (server == null) {
      server = HttpServers.start("auth.token", OWNER);
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }
    return server;
  }

  @Override
  protected SgmClient client() {
    try {
      return new SgmHttpClient(server().url(), Duration.ofSeconds(30), OWNER);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected SgmClient clientWithToken(String token) {
    try {
      return new SgmHttpClient(server().url(), Duration.ofSeconds(30), token);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
