package dev.sgm.transport.mcp;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CoreConformanceTck;

/**
 * C1–C12 over Mcp with authentication on: the suite presents a bootstrap token, and every request
 * passes the engine's grant checks on its way.
 */
class McpAuthConformanceTest extends CoreConformanceTck {
  private static final String TOKEN = "conformance-bootstrap-token-0123456789abcdef";
  private static McpServers.Running server;

  private static synchronized McpServers.Running server() throws Exception {
    if (server == null) {
      server = McpServers.start("auth.token", TOKEN);
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }
    return server;
  }

  @Override
  protected SgmClient client() {
    try {
      return new McpClient(server().endpoint(), TOKEN);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
