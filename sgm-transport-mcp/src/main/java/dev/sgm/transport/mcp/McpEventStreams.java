package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The server-sent event streams of the Streamable HTTP endpoint: a 2026-07-28 {@code
 * subscriptions/listen}, and a 2025 session's GET. Each lasts until the client leaves, the server
 * ends it, or the caller's token no longer holds.
 */
final class McpEventStreams {
  /** How often a long-lived stream checks that its caller's token still holds. */
  private static final Duration RECHECK = Duration.ofSeconds(1);

  private final SgmService service;
  private final long heartbeatMillis;

  /** The connections with a stream open (2026 listens), to end them when the server stops. */
  private final Set<McpConnection> listening = ConcurrentHashMap.newKeySet();

  McpEventStreams(SgmService service, long heartbeatMillis) {
    this.service = service;
    this.heartbeatMillis = heartbeatMillis;
  }

  /** A 2026 listen's stream; its connection ends with it. */
  void listen(
      Response response,
      Callback callback,
      McpHttpCaller caller,
      McpServer.Listen listen,
      McpConnection connection) {
    listening.add(connection);
    try {
      stream(response, callback, caller, listen.subscriptions(), listen, connection);
    } finally {
      listening.remove(connection);
    }
  }

  /** A 2025 session's stream of the notifications of its subscriptions. */
  void session(
      Response response, Callback callback, McpHttpCaller caller, McpSubscriptions subscribed) {
    stream(response, callback, caller, subscribed, null, null);
  }

  /** How many 2026 listens are streaming. */
  int listening() {
    return listening.size();
  }

  /** Ends the 2026 listens: they never finish by themselves, and shutdown would wait for them. */
  void closeAll() {
    listening.forEach(McpConnection::close);
  }

  /**
   * A stream of server-sent events: {@code listen}'s acknowledgement first (2026), then the
   * notifications of {@code subscribed}, with heartbeat comments while idle, until the client
   * leaves, the server ends it, or the caller's token no longer holds (then an error ends it).
   */
  private void stream(
      Response response,
      Callback callback,
      McpHttpCaller caller,
      McpSubscriptions subscribed,
      McpServer.Listen listen,
      McpConnection connection) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put("X-Accel-Buffering", "no");
    try (OutputStream out = Content.Sink.asOutputStream(response)) {
      if (listen != null) {
        event(out, listen.acknowledgement());
      } else {
        out.write(": stream open\n\n".getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
      long lastWrite = System.nanoTime();
      long recheckMillis = Math.min(heartbeatMillis, RECHECK.toMillis());
      while (!subscribed.closed()) {
        ObjectNode notification = subscribed.next(Duration.ofMillis(recheckMillis));
        SgmException refused = caller.stillAuthenticated(service);
        if (refused != null) {
          JsonNode id = listen == null ? null : listen.id();
          event(out, McpProtocol.error(id, McpProtocol.UNAUTHORIZED, refused.getMessage()));
          break;
        }
        if (notification != null) {
          event(out, notification);
          lastWrite = System.nanoTime();
        } else if (System.nanoTime() - lastWrite
            >= TimeUnit.MILLISECONDS.toNanos(heartbeatMillis)) {
          out.write(": heartbeat\n\n".getBytes(StandardCharsets.UTF_8));
          out.flush();
          lastWrite = System.nanoTime();
        }
      }
      if (listen != null && subscribed.closed() && caller.stillAuthenticated(service) == null) {
        event(out, listen.ended());
      }
      callback.succeeded();
    } catch (IOException e) {
      callback.failed(e); // the client left: its subscription ends below
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      callback.failed(e);
    } finally {
      // A 2026 listen ends with its stream; a 2025 session keeps its subscriptions for the
      // next GET.
      if (connection != null) {
        connection.close();
      }
    }
  }

  private static void event(OutputStream out, JsonNode message) throws IOException {
    out.write(
        ("event: message\ndata: " + Json.write(message) + "\n\n").getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
