package dev.sgm.core;

import dev.sgm.api.spi.Config;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * Where the audit lines go: appended to {@code audit.file} when it is set (created readable by its
 * owner only), else to the {@code dev.sgm.audit} logger. A request only queues its line; one thread
 * writes the lines in batches, so formatting and writing them costs the requests nothing but the
 * queueing. The queue is bounded and a request waits when it is full, so no line is ever dropped;
 * closing writes every line queued before.
 */
final class AuditTrail implements AutoCloseable {
  /** The file the lines are appended to; unset, they go to the logger. */
  static final String FILE = "audit.file";

  private static final System.Logger LOGGER = System.getLogger("dev.sgm.audit");
  private static final int CAPACITY = 65_536;

  /** Queued by {@link #close}: no audit line is empty. */
  private static final String END = "";

  private final BlockingQueue<String> queue = new ArrayBlockingQueue<>(CAPACITY);
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

  /** Queues one line, waiting while the queue is full. */
  void record(String line) {
    try {
      queue.put(line);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      // Not lost: written by this thread rather than the writer.
      emit(List.of(line));
    }
  }

  private void write() {
    List<String> batch = new ArrayList<>();
    try {
      while (true) {
        batch.add(queue.take());
        queue.drainTo(batch);
        boolean end = batch.remove(END);
        emit(batch);
        batch.clear();
        if (end) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized void emit(List<String> lines) {
    if (file == null) {
      for (String line : lines) {
        LOGGER.log(System.Logger.Level.INFO, line);
      }
      return;
    }
    try {
      for (String line : lines) {
        file.write(line);
        file.newLine();
      }
      file.flush();
    } catch (IOException e) {
      LOGGER.log(System.Logger.Level.ERROR, "the audit file cannot be written: " + e);
    }
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
