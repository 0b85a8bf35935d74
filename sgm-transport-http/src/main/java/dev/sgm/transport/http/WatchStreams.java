package dev.sgm.transport.http;

import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.Json;
import dev.sgm.api.ProtocolVersion;
import dev.sgm.api.SgmException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Serves watch streams as server-sent events ({@code GET /v1/watch}). The stream opens with a
 * {@code ready} event whose {@code id:} is the cursor of where it starts; each change is a default
 * ({@code message}) event whose {@code id:} is its cursor and whose data is the event's JSON; an
 * idle stream gets a heartbeat comment. A consumer that fell behind is told with a {@code behind}
 * event (it is then caught up from the change log); one whose cursor the log no longer holds gets
 * an {@code error} event with the error object, and the stream ends. Each stream runs on the
 * request's (virtual) thread, so a client that stops reading only parks its own thread.
 */
final class WatchStreams {
  private static final System.Logger LOG = System.getLogger(WatchStreams.class.getName());

  private final long heartbeatMillis;
  private final Set<ChangeStream> open = ConcurrentHashMap.newKeySet();

  /** The most recent events' frames, by cursor (the events themselves are shared, too). */
  private final java.util.Map<String, String> frames =
      new java.util.LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(java.util.Map.Entry<String, String> eldest) {
          return size() > 256;
        }
      };

  WatchStreams(long heartbeatMillis) {
    this.heartbeatMillis = heartbeatMillis;
  }

  /** How many streams are open now. */
  int open() {
    return open.size();
  }

  /** Ends every open stream (at shutdown). */
  void closeAll() {
    for (ChangeStream stream : open) {
      open.remove(stream);
      stream.close();
    }
  }

  /** Streams {@code stream} to the response until the client leaves or the stream is closed. */
  void stream(ChangeStream stream, Response response, Callback callback) {
    open.add(stream);
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put("SGM-Protocol-Version", ProtocolVersion.CURRENT.toString());
    response.getHeaders().put("X-Accel-Buffering", "no");
    try (OutputStream out = Content.Sink.asOutputStream(response)) {
      send(
          out,
          "retry: 1000\nevent: ready\nid: "
              + stream.cursor()
              + "\ndata: "
              + cursorJson(stream)
              + "\n\n");
      while (open.contains(stream)) {
        ChangeStream.Batch batch;
        try {
          batch = stream.poll(Duration.ofMillis(heartbeatMillis));
        } catch (SgmException e) {
          send(out, "event: error\ndata: " + Json.write(e.toJson()) + "\n\n");
          break;
        }
        StringBuilder text = new StringBuilder();
        if (batch.fellBehind()) {
          text.append("event: behind\ndata: ")
              .append(
                  Json.write(
                      Json.object()
                          .put(
                              "message",
                              "this stream fell behind its buffer and is caught up from the change"
                                  + " log; no event is lost")))
              .append("\n\n");
        }
        for (ChangeEvent event : batch.events()) {
          text.append(frame(event));
        }
        if (text.isEmpty()) {
          text.append(": heartbeat\n\n");
        }
        send(out, text.toString());
      }
      callback.succeeded();
    } catch (IOException e) {
      // The client went away; what it held is freed below.
      callback.failed(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      callback.failed(e);
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "a watch stream failed", e);
      callback.failed(e);
    } finally {
      open.remove(stream);
      stream.close();
    }
  }

  /**
   * The event's SSE frame. Every watcher of a scope sends the same event at about the same time, so
   * the last few frames are kept rather than written out again for each of them.
   */
  private String frame(ChangeEvent event) {
    synchronized (frames) {
      String cached = frames.get(event.cursor());
      if (cached != null) {
        return cached;
      }
    }
    String frame = "id: " + event.cursor() + "\ndata: " + Json.write(event.toJson()) + "\n\n";
    synchronized (frames) {
      frames.put(event.cursor(), frame);
    }
    return frame;
  }

  private static String cursorJson(ChangeStream stream) {
    return Json.write(Json.object().put("cursor", stream.cursor()));
  }

  private static void send(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }
}
