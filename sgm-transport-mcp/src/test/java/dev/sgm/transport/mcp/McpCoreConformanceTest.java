package dev.sgm.transport.mcp;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.CoreConformanceTck;

/**
 * The CoreConformanceTck suite through MCP tools, over Streamable HTTP, against a real server on
 * loopback.
 */
class McpCoreConformanceTest extends CoreConformanceTck {
  @Override
  protected SgmClient client() {
    try {
      return McpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
