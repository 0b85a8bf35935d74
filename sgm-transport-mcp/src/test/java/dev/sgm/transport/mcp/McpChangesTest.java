package dev.sgm.transport.mcp;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.ChangesTck;

/** The change feed suite over MCP against a real server on loopback. */
class McpChangesTest extends ChangesTck {
  @Override
  protected SgmClient client() {
    try {
      return McpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
