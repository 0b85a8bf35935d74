package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.spi.ClientProvider;
import java.util.List;

/**
 * Provides {@link McpClient} for {@code mcp+http://host:port/mcp} and {@code mcp+https://} URLs:
 * the MCP endpoint's URL with {@code mcp+} in front of its scheme.
 */
public final class McpClientProvider implements ClientProvider {
  @Override
  public List<String> schemes() {
    return List.of("mcp+http", "mcp+https");
  }

  @Override
  public Remote open(String url) {
    return open(url, null);
  }

  @Override
  public Remote open(String url, String token) {
    McpClient client = new McpClient(url.substring("mcp+".length()), token);
    return new Remote() {
      @Override
      public JsonNode call(String operation, JsonNode request) {
        return client.call(operation, request);
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }
}
