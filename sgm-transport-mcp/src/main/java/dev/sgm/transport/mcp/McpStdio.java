package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** MCP over stdio: one JSON-RPC message per line in, one per line out, until the input ends. */
public final class McpStdio {
  private McpStdio() {}

  public static void serve(McpServer server, McpDefaults defaults, InputStream in, OutputStream out)
      throws IOException {
    PrintStream writer = new PrintStream(out, true, StandardCharsets.UTF_8);
    BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    for (String line = reader.readLine(); line != null; line = reader.readLine()) {
      if (line.isBlank()) {
        continue;
      }
      JsonNode message;
      try {
        message = Json.parse(line);
      } catch (SgmException e) {
        writer.println(Json.write(McpServer.error(null, -32700, "parse error: " + e.getMessage())));
        continue;
      }
      JsonNode response = server.handle(message, defaults);
      if (response != null) {
        synchronized (writer) {
          writer.println(Json.write(response));
        }
      }
    }
  }
}
