package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.FollowedChanges;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.SgmClient;
import dev.sgm.api.spi.StdioServerProvider;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;

/** Provides MCP over stdio, for {@code sgm mcp}, with resource subscriptions. */
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
    // Subscriptions follow the backend's live watch where it has one (the engine in this process),
    // else the change feed through its operations (a server, a directory another process holds).
    McpStdio.serve(
        new McpServer(backend, operations, version),
        new McpConnection(
            new McpDefaults(scope, agent), request -> FollowedChanges.watch(backend, request)),
        in,
        out);
  }
}
