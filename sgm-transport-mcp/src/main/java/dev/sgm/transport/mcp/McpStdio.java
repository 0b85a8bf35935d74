package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * MCP over stdio: one JSON-RPC message per line in, one per line out, until the input ends; the
 * notifications of the session's resource subscriptions go out between the answers.
 */
public final class McpStdio {
  private McpStdio() {}

  /** Serves without resource subscriptions. */
  public static void serve(McpServer server, McpDefaults defaults, InputStream in, OutputStream out)
      throws IOException {
    serve(server, defaults, null, in, out);
  }

  /**
   * Serves with {@code subscriptions} (null for none), sending their notifications as they come.
   */
  static void serve(
      McpServer server,
      McpDefaults defaults,
      McpSubscriptions subscriptions,
      InputStream in,
      OutputStream out)
      throws IOException {
    PrintStream writer = new PrintStream(out, true, StandardCharsets.UTF_8);
    Thread notifying =
        subscriptions == null
            ? null
            : Thread.ofVirtual()
                .name("sgm-mcp-stdio-notifications")
                .start(() -> notifications(subscriptions, writer));
    try {
      BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode response;
        try {
          response = server.handle(Json.parse(line), defaults, subscriptions);
        } catch (SgmException e) {
          response = McpServer.error(null, -32700, "parse error: " + e.getMessage());
        }
        if (response != null) {
          synchronized (writer) {
            writer.println(Json.write(response));
          }
        }
      }
    } finally {
      if (subscriptions != null) {
        subscriptions.close();
        notifying.interrupt();
      }
    }
  }

  private static void notifications(McpSubscriptions subscriptions, PrintStream writer) {
    try {
      while (!subscriptions.closed()) {
        ObjectNode notification = subscriptions.next(Duration.ofSeconds(5));
        if (notification != null) {
          synchronized (writer) {
            writer.println(Json.write(notification));
          }
        }
      }
    } catch (InterruptedException e) {
      // The session ended.
    }
  }
}
