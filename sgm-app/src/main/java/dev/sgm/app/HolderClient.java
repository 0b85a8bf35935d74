package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.core.SgmRuntime;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.TimeUnit;

/**
 * Another process runs the store; calls go to it over pooled connections. A call that hears nothing
 * from the holder for {@code timeoutNanos} (a holder at work sends an interim frame every {@link
 * LocalChannel#INTERIM_NANOS}) fails with {@code unavailable}: the holder is alive, since it keeps
 * its lock, but stopped or stuck.
 */
final class HolderClient implements SharedDirectory.State {
  private final Path directory;
  private final Path socket;
  private final long timeoutNanos;
  private final ConcurrentLinkedDeque<LocalChannel.Framed> idle = new ConcurrentLinkedDeque<>();
  private volatile boolean closed;

  /** The request never reached a holder that would run it. */
  static final class NotSent extends Exception {
    NotSent() {
      super(null, null, false, false);
    }
  }

  /** The request reached the holder, which went away before it answered. */
  static final class Lost extends Exception {
    Lost() {
      super(null, null, false, false);
    }
  }

  private HolderClient(Path directory, Path socket, long timeoutNanos) {
    this.directory = directory;
    this.socket = socket;
    this.timeoutNanos = timeoutNanos;
  }

  /**
   * A client of the holder on {@code socket}, once a first connection to it is made; a holder too
   * stopped to take connections makes this {@code unavailable}.
   */
  static HolderClient connect(Path directory, Path socket, long timeoutNanos) throws IOException {
    HolderClient client = new HolderClient(directory, socket, timeoutNanos);
    client.idle.add(client.newChannel("connect"));
    return client;
  }

  private LocalChannel.Framed newChannel(String operation) throws IOException {
    try {
      return LocalChannel.connect(socket, timeoutNanos);
    } catch (LocalChannel.Silent e) {
      throw stopped(operation, "was not sent");
    }
  }

  JsonNode call(
      String origin,
      String operation,
      JsonNode request,
      boolean resendable,
      SgmRuntime.Progress progress)
      throws NotSent, Lost {
    LocalChannel.Framed channel = idle.pollFirst();
    if (channel == null) {
      try {
        channel = newChannel(operation);
      } catch (IOException e) {
        throw new NotSent();
      }
    }
    ObjectNode message = Json.object();
    message.put("op", operation);
    message.put("origin", origin);
    message.set("request", request);
    JsonNode response;
    try {
      channel.write(message);
    } catch (IOException e) {
      quietly(channel);
      if (e instanceof LocalChannel.Silent) {
        throw stopped(operation, sentAgain(resendable));
      }
      throw new NotSent(); // an incomplete frame is never run
    }
    while (true) {
      try {
        response = channel.read();
      } catch (IOException e) {
        quietly(channel);
        if (e instanceof LocalChannel.Silent) {
          throw stopped(operation, sentAgain(resendable));
        }
        throw new Lost();
      }
      if (response == null) {
        quietly(channel);
        throw new Lost();
      }
      JsonNode done = response.get("progress");
      if (done != null) {
        progress.report(done.path("done").asLong(), done.path("total").asLong());
      } else if (!response.has("working")) {
        break;
      }
    }
    if (response.path("closing").asBoolean(false)) {
      quietly(channel);
      throw new NotSent();
    }
    if (closed) {
      quietly(channel);
    } else {
      idle.offerFirst(channel);
    }
    if (response.has("error")) {
      throw SgmException.fromJson(response);
    }
    return response.get("result");
  }

  private static String sentAgain(boolean resendable) {
    return resendable
        ? "may or may not have taken effect, and sending it again is safe"
        : "may or may not have taken effect";
  }

  private SgmException stopped(String operation, String outcome) {
    return new SgmException(
        ErrorCode.UNAVAILABLE,
        "the process holding "
            + directory
            + " has not answered for "
            + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
            + " ms ("
            + LocalChannel.TIMEOUT_KEY
            + "): it is running but stopped or stuck; "
            + operation
            + " "
            + outcome);
  }

  void close() {
    closed = true;
    for (LocalChannel.Framed channel = idle.poll(); channel != null; channel = idle.poll()) {
      quietly(channel);
    }
  }

  private static void quietly(LocalChannel.Framed channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // Closing after a failure: nothing more to do.
    }
  }
}
