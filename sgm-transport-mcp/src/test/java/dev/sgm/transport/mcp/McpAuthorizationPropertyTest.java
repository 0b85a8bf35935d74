package dev.sgm.transport.mcp;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.AuthorizationPropertyTck;

/**
 * The kit's authorization property over Mcp: random principals, made with tokens.create by a
 * bootstrap owner, each calling through its own token.
 */
class McpAuthorizationPropertyTest extends AuthorizationPropertyTck {
  private static final String OWNER = "authorization-property-token-0123456789abcdef";
  private static McpServers.Running server;

  private static synchronized McpServers.Running server() throws Exception {
    if (server == null) {
      server = McpServers.start("auth.token", OWNER);
      Runtime.getRuntime().addShutdownHook(new Thread(server::close));
    }
    return server;
  }

  @Override
  protected SgmClient client() {
    try {
      return new McpClient(server().endpoint(), OWNER);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  protected SgmClient clientWithToken(String token) {
    try {
      return new McpClient(server().endpoint(), token);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
