package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.SgmClient;
import dev.sgm.api.spi.StdioServerProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/** Provides MCP over stdio, for {@code sgm mcp}. */
public final class McpStdioProvider implements StdioServerProvider {
  @Override
  public String name() {
    return "mcp";
  }

  @Override
  public void serve(
      SgmClient backend,
      List<OperationDescriptor> operations,
      ObjectNode scope,
      String agent,
      String version,
      InputStream in,
      OutputStream out)
      throws IOException {
    McpStdio.serve(
        new McpServer(backend, operations, version), new McpDefaults(scope, agent), in, out);
  }
}
