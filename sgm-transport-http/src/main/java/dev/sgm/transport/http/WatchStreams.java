package dev.sgm.transport.http;

import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.Json;
import dev.sgm.api.ProtocolVersion;
import dev.sgm.api.SgmException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;

/**
 * Serves watch streams as server-sent events ({@code GET /v1/watch}). The stream opens with a
 * {@code ready} event whose {@code id:} is the cursor of where it starts; each change is a default
 * ({@code message}) event whose {@code id:} is its cursor and whose data is the event's JSON; an
 * idle stream gets a heartbeat comment. A consumer that fell behind is told with a {@code behind}
 * event (it is then caught up from the change log); one whose cursor the log no longer holds gets
 * an {@code error} event with the error object, and the stream ends.
 *
 * <p>A stream holds no thread while it waits: the engine signals it ({@link ChangeStream#onReady})
 * on the thread that hands out commits, which takes what is ready and starts a non-blocking write
 * of the event's frame, encoded once and shared by every stream that sends it. At most one write
 * per stream is in flight; what commits meanwhile waits in the watch's bounded buffer, so a client
 * that stops reading holds up nobody (its buffer overflows and it is caught up from the log later,
 * on a thread of its own, as reading the log may block). A stream the engine cannot signal is
 * served by a (virtual) thread of its own that waits in {@link ChangeStream#poll}.
 */
final class WatchStreams {
  private static final System.Logger LOG = System.getLogger(WatchStreams.class.getName());
  private static final byte[] HEARTBEAT = ": heartbeat\n\n".getBytes(StandardCharsets.UTF_8);
  private static final byte[] BEHIND =
      ("event: behind\ndata: "
              + Json.write(
                  Json.object()
                      .put(
                          "message",
                          "this stream fell behind its buffer and is caught up from the change"
                              + " log; no event is lost"))
              + "\n\n")
          .getBytes(StandardCharsets.UTF_8);

  private final long heartbeatMillis;
  private final Set<Session> open = ConcurrentHashMap.newKeySet();

  /** Gives idle streams their heartbeats; started with the first stream. */
  private ScheduledExecutorService ticker;

  /** The frame of the event most recently encoded: every watcher of its scope sends it next. */
  private volatile Frame last;

  /** The most recent events' frames by cursor, for events read from the log again. */
  private final Map<String, byte[]> frames =
      new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, byte[]> eldest) {
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
    for (Session session : open) {
      session.end();
    }
    synchronized (this) {
      if (ticker != null) {
        ticker.shutdownNow();
        ticker = null;
      }
    }
  }

  /** Streams {@code stream} to the response until the client leaves or the stream is closed. */
  void stream(ChangeStream stream, Response response, Callback callback) {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream; charset=utf-8");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put("SGM-Protocol-Version", ProtocolVersion.CURRENT.toString());
    response.getHeaders().put("X-Accel-Buffering", "no");
    Session session = new Session(stream, response, callback);
    open.add(session);
    session.start();
  }

  /**
   * Checks {@code session} for a heartbeat after {@code delayNanos}. Each stream has its own time
   * (one interval after its last write), so that the streams of clients gone are found and freed
   * one by one, not all at one tick.
   */
  private void heartbeatIn(Session session, long delayNanos) {
    ScheduledExecutorService timer;
    synchronized (this) {
      if (ticker == null) {
        ticker =
            Executors.newSingleThreadScheduledExecutor(
                task -> Thread.ofPlatform().daemon().name("sgm-watch-heartbeat").unstarted(task));
      }
      timer = ticker;
    }
    try {
      timer.schedule(session::heartbeatIfIdle, delayNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException e) {
      // Shutting down: the stream is ending.
    }
  }

  /** The frames of {@code batch} as one buffer's bytes; null when it has nothing to send. */
  private byte[] encode(ChangeStream.Batch batch) {
    if (batch.events().isEmpty() && !batch.fellBehind()) {
      return null;
    }
    if (batch.events().size() == 1 && !batch.fellBehind()) {
      return frame(batch.events().get(0));
    }
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    if (batch.fellBehind()) {
      text.writeBytes(BEHIND);
    }
    for (ChangeEvent event : batch.events()) {
      text.writeBytes(frame(event));
    }
    return text.toByteArray();
  }

  /**
   * The event's SSE frame. Every watcher of a scope gets the same event object at about the same
   * time, so its frame is encoded once; the last few are also kept by cursor, for the same events
   * read again from the log.
   */
  private byte[] frame(ChangeEvent event) {
    Frame recent = last;
    if (recent != null && recent.event() == event) {
      return recent.bytes();
    }
    byte[] bytes;
    synchronized (frames) {
      bytes = frames.get(event.cursor());
    }
    if (bytes == null) {
      bytes =
          ("id: " + event.cursor() + "\ndata: " + Json.write(event.toJson()) + "\n\n")
              .getBytes(StandardCharsets.UTF_8);
      synchronized (frames) {
        frames.put(event.cursor(), bytes);
      }
    }
    last = new Frame(event, bytes);
    return bytes;
  }

  private static String cursorJson(ChangeStream stream) {
    return Json.write(Json.object().put("cursor", stream.cursor()));
  }

  private static byte[] errorFrame(SgmException e) {
    return ("event: error\ndata: " + Json.write(e.toJson()) + "\n\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** An event and its encoded frame. */
  private record Frame(ChangeEvent event, byte[] bytes) {}

  /**
   * One client's stream. Whoever holds {@link #busy} (the opening request, the thread that signals,
   * or the completion of the write in flight) takes what is ready and writes it; a signal that
   * finds it held only leaves {@link #pending} set, which the holder sees before it lets go.
   */
  private final class Session implements Callback {
    private static final int WRITING = 1;
    private static final int ASYNC = 2;
    private static final int DONE = 3;
    private static final int FAILED = 4;

    private final ChangeStream stream;
    private final Response response;
    private final Callback done;
    private final AtomicBoolean busy = new AtomicBoolean(true);
    private final AtomicBoolean finished = new AtomicBoolean();

    /**
     * The write in flight: {@code WRITING} while the call that started it has not returned; its
     * completion then either finds that (and leaves the loop to go on) or {@code ASYNC} (and goes
     * on itself), so that writes completing at once never nest.
     */
    private final AtomicInteger write = new AtomicInteger();

    private volatile boolean pending;
    private volatile boolean heartbeatDue;
    private volatile boolean ending;
    private volatile boolean signalled;
    private volatile long lastWrite = System.nanoTime();

    Session(ChangeStream stream, Response response, Callback done) {
      this.stream = stream;
      this.response = response;
      this.done = done;
    }

    void start() {
      byte[] ready =
          ("retry: 1000\nevent: ready\nid: "
                  + stream.cursor()
                  + "\ndata: "
                  + cursorJson(stream)
                  + "\n\n")
              .getBytes(StandardCharsets.UTF_8);
      // Registered before the first write: what a signal brings meanwhile waits for the pump.
      signalled = stream.onReady(this::signal);
      if (signalled) {
        heartbeatIn(this, TimeUnit.MILLISECONDS.toNanos(heartbeatMillis));
        pump(ready, false);
      } else {
        Thread.ofVirtual().name("sgm-watch").start(() -> serveByPolling(ready));
      }
    }

    /** Something may be ready: writes it now unless a write is in flight (then it follows). */
    void signal() {
      pending = true;
      if (busy.compareAndSet(false, true)) {
        pump(null, false);
      }
    }

    /** On the timer: a heartbeat when nothing was written for an interval; then the next check. */
    void heartbeatIfIdle() {
      if (finished.get()) {
        return;
      }
      long interval = TimeUnit.MILLISECONDS.toNanos(heartbeatMillis);
      long idle = System.nanoTime() - lastWrite;
      if (idle >= interval) {
        heartbeatDue = true;
        try {
          signal();
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "a watch stream's heartbeat failed", e);
        }
        heartbeatIn(this, interval);
      } else {
        heartbeatIn(this, interval - idle);
      }
    }

    /** Ends the stream after the write in flight, if any (at shutdown). */
    void end() {
      ending = true;
      stream.close();
      if (signalled) {
        signal();
      }
    }

    /**
     * Holding {@link #busy}: writes {@code first}, then whatever is ready, until a write is left in
     * flight (its completion goes on) or nothing is left (then lets go of {@link #busy}). Reading
     * the change log may block: unless {@code mayBlock}, that is handed to a virtual thread.
     */
    private void pump(byte[] first, boolean mayBlock) {
      byte[] text = first;
      while (true) {
        if (text == null) {
          if (ending) {
            finish(null);
            return;
          }
          pending = false;
          try {
            ChangeStream.Batch batch = stream.pollReady();
            if (batch == null) {
              if (!mayBlock) {
                Thread.ofVirtual().name("sgm-watch-catch-up").start(() -> pump(null, true));
                return;
              }
              batch = stream.poll(Duration.ZERO);
            }
            text = encode(batch);
          } catch (SgmException e) {
            text = errorFrame(e);
            ending = true;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            finish(e);
            return;
          } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "a watch stream failed", e);
            finish(e);
            return;
          }
          if (text == null && heartbeatDue) {
            text = HEARTBEAT;
          }
          if (text == null) {
            busy.set(false);
            // A signal that came after the poll above found busy held and left only pending.
            if ((pending || ending) && busy.compareAndSet(false, true)) {
              continue;
            }
            return;
          }
        }
        heartbeatDue = false;
        lastWrite = System.nanoTime();
        write.set(WRITING);
        response.write(false, ByteBuffer.wrap(text), this);
        if (write.compareAndSet(WRITING, ASYNC)) {
          return;
        }
        if (write.get() == FAILED) {
          return;
        }
        text = null;
      }
    }

    @Override
    public void succeeded() {
      if (!write.compareAndSet(WRITING, DONE)) {
        pump(null, false);
      }
    }

    @Override
    public void failed(Throwable failure) {
      // The client went away (or stopped reading past the idle timeout): what it held is freed.
      write.set(FAILED);
      finish(failure);
    }

    @Override
    public InvocationType getInvocationType() {
      // The continuation only takes what is ready and starts a write; it never blocks.
      return InvocationType.NON_BLOCKING;
    }

    /** For a stream the engine cannot signal: waits in poll on a thread of its own. */
    private void serveByPolling(byte[] ready) {
      try {
        send(ready);
        while (!ending) {
          byte[] text;
          try {
            text = encode(stream.poll(Duration.ofMillis(heartbeatMillis)));
          } catch (SgmException e) {
            send(errorFrame(e));
            break;
          }
          send(text == null ? HEARTBEAT : text);
        }
        finish(null);
      } catch (IOException e) {
        finish(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        finish(e);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "a watch stream failed", e);
        finish(e);
      }
    }

    private void send(byte[] text) throws IOException {
      try (Blocker.Callback written = Blocker.callback()) {
        response.write(false, ByteBuffer.wrap(text), written);
        written.block();
      }
    }

    private void finish(Throwable failure) {
      if (!finished.compareAndSet(false, true)) {
        return;
      }
      open.remove(this);
      stream.close();
      if (failure == null) {
        done.succeeded();
      } else {
        done.failed(failure);
      }
    }
  }
}
