package dev.sgm.profile.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A snapshot restore killed with SIGKILL part-way leaves the scope either fully as it was before
 * the restore or fully restored, never in between.
 */
class RestoreCrashTest {
  private static final int RECORDS = 4000;

  private static Process child(String... args) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                RestoreCrashChild.class.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  private static Map<String, String> state(Path dir) {
    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()))) {
      Map<String, String> state = new TreeMap<>();
      String cursor = null;
      do {
        JsonNode page =
            sgm.service()
                .invoke(
                    Caller.embedded(),
                    "retrieve",
                    Json.parse(
                        "{\"scope\":{\"project\":\"crash\"},\"limit\":1000"
                            + (cursor == null ? "" : ",\"cursor\":\"" + cursor + "\"")
                            + "}"));
        page.path("records")
            .forEach(r -> state.put(r.path("id").asText(), r.path("content").asText()));
        cursor = page.hasNonNull("next_cursor") ? page.path("next_cursor").asText() : null;
      } while (cursor != null);
      return state;
    }
  }

  @Test
  void aRestoreKilledPartWayIsAllOrNothing(@TempDir Path root) throws Exception {
    int killedMidway = 0;
    for (long delayMillis : new long[] {150, 400, 900}) {
      Path dir = Files.createDirectories(root.resolve("run-" + delayMillis));
      Process prepare = child("prepare", dir.toString(), Integer.toString(RECORDS));
      String prepared = new String(prepare.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(prepare.waitFor(120, TimeUnit.SECONDS));
      assertTrue(prepared.contains("PREPARED"), prepared);

      Map<String, String> before = state(dir);
      assertEquals(RECORDS + RECORDS / 5, before.size());
      Process restore = child("restore", dir.toString());
      List<String> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
      Thread reader =
          new Thread(
              () -> {
                try (BufferedReader out =
                    new BufferedReader(
                        new InputStreamReader(restore.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line = out.readLine(); line != null; line = out.readLine()) {
                    lines.add(line);
                  }
                } catch (java.io.IOException e) {
                  // The pipe breaks when the child is killed.
                }
              });
      reader.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!lines.contains("RESTORING") && System.nanoTime() < deadline) {
        Thread.sleep(1);
      }
      Thread.sleep(delayMillis);
      boolean finished = lines.contains("DONE");
      restore.destroyForcibly();
      assertTrue(restore.waitFor(30, TimeUnit.SECONDS));
      reader.join(5000);
      if (!finished && !lines.contains("DONE")) {
        killedMidway++;
      }

      Map<String, String> after = state(dir);
      boolean untouched = after.equals(before);
      boolean restored =
          after.size() == RECORDS
              && after.entrySet().stream()
                  .allMatch(e -> e.getValue().equals("original " + e.getKey().substring(1)));
      assertTrue(
          untouched || restored,
          "killed after "
              + delayMillis
              + " ms: "
              + after.size()
              + " records, neither before nor after");
    }
    assertTrue(killedMidway >= 1, "at least one restore was killed before it finished");
  }
}
