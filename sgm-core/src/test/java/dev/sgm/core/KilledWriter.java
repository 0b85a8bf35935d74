package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link DurabilityWriter} in a child JVM on a data directory, collects the stores it
 * acknowledged, and kills it with SIGKILL (no shutdown hooks, no close) once enough were: the crash
 * the durability and index tests recover from.
 */
final class KilledWriter {
  private KilledWriter() {}

  /** The ids the child acknowledged before it was killed, at least {@code acknowledgements}. */
  static Set<String> writeThenKill(Path dir, int acknowledgements) throws Exception {
    return writeThenKill(dir, acknowledgements, "");
  }

  /**
   * As {@link #writeThenKill(Path, int)}, with every id starting {@code prefix}, so that several
   * runs on one directory write distinct records.
   */
  static Set<String> writeThenKill(Path dir, int acknowledgements, String prefix) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(DurabilityWriter.class.getName());
    command.add(dir.toString());
    command.add(prefix);
    Process child =
        new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  if (line.startsWith("ACK ")) {
                    acknowledged.add(line.substring(4));
                  }
                }
              } catch (java.io.IOException e) {
                // The pipe breaks when the child is killed.
              }
            });
    reader.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (acknowledged.size() < acknowledgements
        && System.nanoTime() < deadline
        && child.isAlive()) {
      Thread.sleep(1);
    }
    boolean stillWriting = child.isAlive();
    child.destroyForcibly();
    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    reader.join(10_000);
    assertTrue(stillWriting, "the writer was still writing");
    // A writer alive but no longer acknowledging is stuck, typically in a damaged store.
    assertTrue(
        acknowledged.size() >= acknowledgements,
        "the writer acknowledged only " + acknowledged.size() + " stores in 30 s");
    return acknowledged;
  }
}
