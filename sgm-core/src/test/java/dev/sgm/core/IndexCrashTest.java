package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Caller;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import dev.sgm.search.SearchIndex;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a writing child JVM with SIGKILL after its stores were committed but before the search
 * index committed them (the index commits about once a second), restarts, and checks that every
 * acknowledged record is found by text: the index catches up from the storage's change log.
 */
class IndexCrashTest {
  private static final int ACKS_BEFORE_KILL = 200;

  @Test
  void recordsCommittedButNotIndexedAreFoundAfterARestart(@TempDir Path dir) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(DurabilityWriter.class.getName());
    command.add(dir.toString());
    Process child = new ProcessBuilder(command).redirectErrorStream(false).start();
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
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (acknowledged.size() < ACKS_BEFORE_KILL
        && System.nanoTime() < deadline
        && child.isAlive()) {
      Thread.sleep(1);
    }
    child.destroyForcibly(); // SIGKILL: the index gets no last commit
    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    reader.join(10_000);
    assertTrue(acknowledged.size() >= ACKS_BEFORE_KILL, "acknowledged " + acknowledged.size());

    long indexedThrough;
    try (SearchIndex index = SearchIndex.open(dir.resolve("index"))) {
      indexedThrough = Long.parseLong(index.commitData().getOrDefault("sgm.seq", "0"));
    }
    assertTrue(
        indexedThrough < acknowledged.size(),
        "the index had committed through write "
            + indexedThrough
            + " of "
            + acknowledged.size()
            + " acknowledged: the crash must come before the index commits them");

    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()))) {
      Scope scope = Scope.of("project", "durable");
      List<String> found = new ArrayList<>();
      String cursor = null;
      do {
        var page =
            sgm.service()
                .retrieve(
                    Caller.embedded(),
                    RetrieveQuery.builder(scope)
                        .text("acknowledged crash")
                        .limit(RetrieveQuery.MAX_LIMIT)
                        .cursor(cursor)
                        .build());
        page.records().forEach(r -> found.add(r.id()));
        cursor = page.nextCursor();
      } while (cursor != null);
      List<String> missing = new ArrayList<>(acknowledged);
      missing.removeAll(found);
      assertEquals(List.of(), missing, "acknowledged records not found by text after the crash");
    }
  }
}
