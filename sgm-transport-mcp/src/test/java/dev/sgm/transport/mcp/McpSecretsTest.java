package dev.sgm.transport.mcp;

import dev.sgm.api.SgmClient;
import dev.sgm.tck.SecretsTck;

/** The secrets suite through MCP tools, over Streamable HTTP, against a real server on loopback. */
class McpSecretsTest extends SecretsTck {
  @Override
  protected SgmClient client() {
    try {
      return McpServers.shared().client();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
