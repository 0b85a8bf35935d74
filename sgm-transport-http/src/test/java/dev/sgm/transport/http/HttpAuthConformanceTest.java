package dev.sgm.transport.http;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CoreConformanceTck;
import java.time.Duration;

/**
 * C1–C12 over HTTP with authentication on: the suite presents a bootstrap token, and every request
 * passes the engine's grant checks on its way.
 */
class HttpAuthConformanceTest extends CoreConformanceTck {
  private static final String TOKEN = "conformance-bootstrap-token-0123456789abcdef";
  private static HttpServers.Running server;

  private static synchronized HttpServers.Running server() throws Exception {
    if (server == null) {
      server = HttpServers.start("auth.token", TOKEN);
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }
    return server;
  }

  @Override
  protected SgmClient client() {
    try {
      return new SgmHttpClient(server().url(), Duration.ofSeconds(30), TOKEN);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
