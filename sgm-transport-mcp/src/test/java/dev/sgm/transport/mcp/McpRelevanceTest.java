package dev.sgm.transport.mcp;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.RelevanceTck;

/**
 * The RelevanceTck suite through MCP tools, over Streamable HTTP, against a real server on
 * loopback.
 */
class McpRelevanceTest extends RelevanceTck {
  @Override
  protected SgmClient client() {
    try {
      return McpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
