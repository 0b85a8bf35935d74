package dev.sgm.transport.mcp;

import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.util.HashMap;
import java.util.Map;

/** Real SGM servers with the MCP transport on loopback, on a free port, over an in-memory store. */
final class McpServers {
  private static Running shared;

  private McpServers() {}

  /** A running server and an MCP client of it, with no session defaults. */
  record Running(SgmRuntime runtime, McpHttpTransport transport, McpClient client)
      implements AutoCloseable {
    String endpoint() {
      return transport.endpoints().get(0);
    }

    @Override
    public void close() {
      runtime.close();
    }
  }

  static Running start(String... keysAndValues) throws Exception {
    Map<String, String> options = new HashMap<>();
    options.put(ConfigLoader.STORAGE_MEMORY, "true");
    options.put("mcp.port", "0");
    options.put("transports.enabled", "mcp");
    for (int i = 0; i < keysAndValues.length; i += 2) {
      options.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    SgmRuntime runtime = SgmRuntime.open(ConfigLoader.load(options, Map.of()));
    try {
      for (Transport transport : runtime.startTransports()) {
        if (transport instanceof McpHttpTransport mcp) {
          // With authentication on, a client needs a token the test creates first.
          McpClient client =
              runtime.tokens().enabled() ? null : new McpClient(mcp.endpoints().get(0));
          return new Running(runtime, mcp, client);
        }
      }
    } catch (Exception e) {
      runtime.close();
      throw e;
    }
    runtime.close();
    throw new IllegalStateException("the mcp transport was not started");
  }

  static synchronized Running shared() throws Exception {
    if (shared == null) {
      shared = start();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }
}
