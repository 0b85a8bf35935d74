package dev.sgm.core;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.Config;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Where the audit lines go: appended to {@code audit.file} when it is set (created readable by its
 * owner only), else to the {@code dev.sgm.audit} logger. A request only queues what happened; one
 * thread turns that into lines and writes them in batches, so a request pays for neither the
 * formatting nor the writing. While requests keep coming, that thread gathers lines for a few
 * milliseconds between batches instead of being woken for each one (a wake-up and a write per line
 * would cost a busy server more than the line itself); when none come it waits for the next. The
 * queue is bounded and a request waits when it is full, so no line is ever dropped; closing writes
 * every line queued before.
 */
final class AuditTrail implements AutoCloseable {
  /** The file the lines are appended to; unset, they go to the logger. */
  static final String FILE = "audit.file";

  private static final System.Logger LOGGER = System.getLogger("dev.sgm.audit");
  private static final int CAPACITY = 65_536;

  /** How long the writer lets lines gather while requests keep coming. */
  private static final long GATHER_MILLIS = 5;

  /** The longest id a line repeats; ids are bounded anyway, this bounds the trail regardless. */
  private static final int MAX_ID = 256;

  /** Queued by {@link #close}. */
  private static final Event END = new Event(null, null, null, null, null, null, null);

  /** One operation as it happened, turned into its line by the writer. */
  private record Event(
      Instant at,
      String principal,
      String origin,
      String operation,
      JsonNode scope,
      String id,
      String outcome) {}

  private final BlockingQueue<Event> queue = new ArrayBlockingQueue<>(CAPACITY);
  private final BufferedWriter file;
  private final Thread writer;

  AuditTrail(Config config) {
    this.file = config.get(FILE).map(AuditTrail::open).orElse(null);
    this.writer = Thread.ofPlatform().daemon().name("sgm-audit").start(this::write);
  }

  private static BufferedWriter open(String name) {
    Path path = Path.of(name);
    try {
      if (!Files.exists(path)
          && Files.getFileStore(path.toAbsolutePath().getParent())
              .supportsFileAttributeView("posix")) {
        Files.createFile(
            path,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      }
      return Files.newBufferedWriter(
          path, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw PluginLoader.startupError(FILE + ": " + path + " cannot be written (" + e + ")");
    }
  }

  /**
   * Queues the line of one operation, waiting while the queue is full: when, who did what where,
   * and the outcome; never content, never a token; the scope and id as the request named them (of
   * its {@code record} when it has one). The request is not read again by the engine or the
   * transport once its operation has answered, so the writer may read its scope later.
   */
  void record(Instant at, Caller caller, String operation, JsonNode request, String outcome) {
    JsonNode target =
        request == null
            ? null
            : request.path("record").isObject() ? request.get("record") : request;
    JsonNode scope = target == null ? null : target.get("scope");
    JsonNode id = target == null ? null : target.get("id");
    Event event =
        new Event(
            at,
            caller.principal().orElse("owner"),
            caller.origin(),
            operation,
            scope,
            id != null && id.isTextual() ? id.textValue() : null,
            outcome);
    try {
      queue.put(event);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      // Not lost: written by this thread rather than the writer.
      emit(List.of(event));
    }
  }

  private void write() {
    List<Event> batch = new ArrayList<>();
    try {
      while (true) {
        batch.add(queue.take());
        boolean more = true;
        while (more) {
          queue.drainTo(batch);
          boolean end = removeEnd(batch);
          emit(batch);
          batch.clear();
          if (end) {
            return;
          }
          Thread.sleep(GATHER_MILLIS);
          more = !queue.isEmpty();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      queue.drainTo(batch);
      removeEnd(batch);
      emit(batch);
    }
  }

  /** Removes {@link #END} (by identity: it is queued last) and says whether it was there. */
  private static boolean removeEnd(List<Event> batch) {
    for (int i = batch.size() - 1; i >= 0; i--) {
      if (batch.get(i) == END) {
        batch.remove(i);
        return true;
      }
    }
    return false;
  }

  private synchronized void emit(List<Event> events) {
    if (events.isEmpty()) {
      return;
    }
    StringBuilder line = new StringBuilder(256);
    if (file == null) {
      for (Event event : events) {
        line.setLength(0);
        LOGGER.log(System.Logger.Level.INFO, format(event, line).toString());
      }
      return;
    }
    try {
      for (Event event : events) {
        line.setLength(0);
        file.append(format(event, line));
        file.newLine();
      }
      file.flush();
    } catch (IOException e) {
      LOGGER.log(System.Logger.Level.ERROR, "the audit file cannot be written: " + e);
    }
  }

  /** The line of {@code event}: one JSON object, its fields always in this order. */
  private static StringBuilder format(Event event, StringBuilder line) {
    line.append('{');
    field(line, "at", Timestamps.format(event.at())).append(',');
    field(line, "principal", event.principal()).append(',');
    field(line, "origin", event.origin()).append(',');
    field(line, "operation", event.operation()).append(',');
    field(line, "scope", scopeOf(event.scope())).append(',');
    String id = event.id() == null ? "-" : event.id();
    field(line, "id", id.length() > MAX_ID ? id.substring(0, MAX_ID) : id).append(',');
    field(line, "outcome", event.outcome());
    return line.append('}');
  }

  private static String scopeOf(JsonNode scope) {
    if (scope == null || !scope.isObject()) {
      return "-";
    }
    try {
      return Scope.fromJson(scope, "scope", ErrorCode.INVALID_REQUEST).canonical();
    } catch (SgmException e) {
      return "(invalid)";
    }
  }

  private static StringBuilder field(StringBuilder line, String name, String value) {
    line.append('"').append(name).append("\":\"");
    JsonStringEncoder.getInstance().quoteAsString(value, line);
    return line.append('"');
  }

  /** Writes every line queued so far, then stops. */
  @Override
  public void close() {
    try {
      queue.put(END);
      writer.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (file != null) {
      synchronized (this) {
        try {
          file.close();
        } catch (IOException e) {
          LOGGER.log(System.Logger.Level.ERROR, "the audit file cannot be closed: " + e);
        }
      }
    }
  }
}
