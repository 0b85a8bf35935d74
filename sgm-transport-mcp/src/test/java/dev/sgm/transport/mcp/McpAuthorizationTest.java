package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Scope;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmClient;
import dev.sgm.tck.AuthorizationTck;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/** The kit's authorization suite over Mcp with real tokens: a bootstrap owner and a reader. */
class McpAuthorizationTest extends AuthorizationTck {
  private static final String OWNER = "authorization-bootstrap-token-0123456789abcdef";
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
  protected SgmClient readerOf(ObjectNode scope) {
    try {
      String token =
          server()
              .runtime()
              .tokens()
              .create(
                  "reader",
                  List.of(
                      new Grants.Grant(
                          Scope.fromJson(scope, "scope", ErrorCode.INVALID_REQUEST),
                          Grants.Access.READ)),
                  Set.of(Grants.ANY_AGENT),
                  Sensitivity.SECRET,
                  Duration.ofMinutes(10))
              .token();
      return new McpClient(server().endpoint(), token);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
