package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * MCP over stdio: one JSON-RPC message per line in, one per line out, until the input ends. The
 * process is one connection: 2025 requests after {@code initialize} and 2026-07-28 requests may
 * come in any mix. Notifications of the 2025 session's resource subscriptions, and of each {@code
 * subscriptions/listen} (after its acknowledgement), go out between the answers.
 */
public final class McpStdio {
  private McpStdio() {}

  /** Serves {@code connection}'s messages from {@code in} to {@code out} until {@code in} ends. */
  static void serve(McpServer server, McpConnection connection, InputStream in, OutputStream out)
      throws IOException {
    PrintStream writer = new PrintStream(out, true, StandardCharsets.UTF_8);
    Thread legacyPump = null;
    try {
      BufferedInputStream reader = new BufferedInputStream(in);
      for (byte[] line = readLine(reader); line != null; line = readLine(reader)) {
        if (blank(line)) {
          continue;
        }
        McpServer.Reply reply;
        try {
          // Parsed as bytes: a line that is not UTF-8 is a parse error, not a guess.
          reply = server.handle(Json.parse(line), connection);
        } catch (SgmException e) {
          reply =
              McpServer.Reply.of(
                  McpProtocol.error(
                      null, McpProtocol.PARSE_ERROR, "parse error: " + e.getMessage()));
        }
        if (reply.message() != null) {
          write(writer, reply.message());
        }
        if (reply.listen() != null) {
          McpServer.Listen listen = reply.listen();
          write(writer, listen.acknowledgement());
          Thread.ofVirtual()
              .name("sgm-mcp-stdio-listen")
              .start(() -> pump(listen.subscriptions(), writer, connection, listen.id()));
        }
        McpSubscriptions legacy = connection.legacySubscriptionsIfAny();
        if (legacyPump == null && legacy != null) {
          legacyPump =
              Thread.ofVirtual()
                  .name("sgm-mcp-stdio-notifications")
                  .start(() -> pump(legacy, writer, null, null));
        }
      }
    } finally {
      connection.close();
      if (legacyPump != null) {
        legacyPump.interrupt();
      }
    }
  }

  /** The next line's bytes without its end ({@code \n} or {@code \r\n}); null at the end. */
  private static byte[] readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); ; b = in.read()) {
      if (b < 0) {
        return line.size() == 0 ? null : line.toByteArray();
      }
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int end =
            bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return java.util.Arrays.copyOf(bytes, end);
      }
      line.write(b);
    }
  }

  private static boolean blank(byte[] line) {
    for (byte b : line) {
      if (b != ' ' && b != '\t' && b != '\r') {
        return false;
      }
    }
    return true;
  }

  private static void write(PrintStream writer, JsonNode message) {
    synchronized (writer) {
      writer.println(Json.write(message));
    }
  }

  /** Writes {@code subscriptions}' notifications until they are closed. */
  private static void pump(
      McpSubscriptions subscriptions,
      PrintStream writer,
      McpConnection connection,
      JsonNode listenId) {
    try {
      while (!subscriptions.closed()) {
        ObjectNode notification = subscriptions.next(Duration.ofSeconds(5));
        if (notification != null) {
          write(writer, notification);
        }
      }
    } catch (InterruptedException e) {
      // The session ended.
    } finally {
      if (connection != null) {
        connection.ended(listenId, subscriptions);
      }
    }
  }
}
