package dev.sgm.transport.mcp;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Transport;
import dev.sgm.api.spi.TransportContext;
import dev.sgm.api.spi.TransportProvider;
import java.util.Set;

/** Provides the {@code mcp} transport: MCP's Streamable HTTP at {@code /mcp} on its own port. */
public final class McpTransportProvider implements TransportProvider {
  @Override
  public String name() {
    return "mcp";
  }

  @Override
  public int order() {
    return 30;
  }

  @Override
  public Set<String> configKeys() {
    return Set.of(
        "mcp.host",
        "mcp.port",
        "mcp.tls.cert",
        "mcp.tls.key",
        "mcp.session-idle-ms",
        "mcp.allowed-hosts",
        "mcp.project",
        "mcp.agent");
  }

  @Override
  public Transport create(Config config, TransportContext context) {
    return new McpHttpTransport(config, context.service());
  }
}
