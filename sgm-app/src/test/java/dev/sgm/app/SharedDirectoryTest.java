package dev.sgm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import dev.sgm.api.spi.Config;
import dev.sgm.core.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A data directory opened twice: the second opener reaches the first over the local channel, and
 * takes the directory over when the first closes. (Other processes, SIGKILL and other users are
 * tested with the real distribution, in SharedDirectoryIT.)
 */
class SharedDirectoryTest {
  @TempDir Path dir;

  private Config config() {
    return ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of());
  }

  private static JsonNode note(String id, String origin) {
    return Json.parseObject(
        "{\"record\": {\"id\": \""
            + id
            + "\", \"type\": \"note\", \"scope\": {\"project\": \"p\"}, \"content\": \"x\","
            + " \"provenance\": {\"agent\": \"a\"}}}",
        "request");
  }

  private static JsonNode read(SharedDirectory shared, String id) {
    return shared.call(
        "read", Json.parseObject("{\"scope\": {\"project\": \"p\"}, \"id\": \"" + id + "\"}", "r"));
  }

  @Test
  void aSecondOpenerSharesTheStoreAndTakesItOverWhenTheFirstCloses() {
    SharedDirectory first = SharedDirectory.open(config(), "cli");
    SharedDirectory second = SharedDirectory.open(config(), "mcp");
    try {
      assertTrue(
          Files.exists(dir.resolve("sgm.channel/sgm.sock")), "the holder serves the directory");
      assertTrue(second.storageDescription().contains("held by another process"));
      second.call("store", note("from-second", null));
      assertEquals(
          "mcp",
          read(first, "from-second").path("record").path("provenance").path("origin").asText(),
          "the caller's origin travels with the call");
      first.call("store", note("from-first", null));
      assertEquals("from-first", read(second, "from-first").path("record").path("id").asText());
      assertEquals(first.operations(), second.operations());
      // Through the channel an answer is the same text as in the holder, small or larger than the
      // channel's buffer, numbers and non-ASCII text included.
      for (int size : new int[] {10, 200_000}) {
        com.fasterxml.jackson.databind.node.ObjectNode large =
            (com.fasterxml.jackson.databind.node.ObjectNode) note("sized-" + size, null);
        ((com.fasterxml.jackson.databind.node.ObjectNode) large.get("record"))
            .put("content", "caf\u00e9 \u2014 1.50 ".repeat(size / 12))
            .set("data", Json.parse("{\"exact\": 1.500, \"big\": 12345678901234567890}"));
        second.call("store", large);
        assertEquals(
            Json.write(read(first, "sized-" + size)), Json.write(read(second, "sized-" + size)));
      }
      // The same document, but for the search index's live state (how far it has applied).
      assertEquals(
          Json.write(first.discovery().withRetrieval(null).toJson()),
          Json.write(second.discovery().withRetrieval(null).toJson()));
      assertEquals(
          first.discovery().retrieval().path("modes"),
          second.discovery().retrieval().path("modes"));
      first.close();
      // The next call finds the holder gone, and this process holds the directory itself now.
      assertEquals("from-first", read(second, "from-first").path("record").path("id").asText());
      assertFalse(second.storageDescription().contains("held by another process"));
      second.call("store", note("after-hand-over", null));
    } finally {
      first.close();
      second.close();
    }
    try (SharedDirectory again = SharedDirectory.open(config(), "cli")) {
      assertEquals(
          "after-hand-over", read(again, "after-hand-over").path("record").path("id").asText());
    }
  }

  @Test
  void theSocketIsOwnerOnlyAndAnExistingDataDirectoryKeepsItsMode() throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    try (SharedDirectory shared = SharedDirectory.open(config(), "cli")) {
      assertTrue(shared.operations().contains("store"));
      assertEquals("rwxr-xr-x", mode(dir), "a folder the user made is left as it is");
      assertEquals("rwx------", mode(dir.resolve("sgm.channel")));
      assertEquals("rw-------", mode(dir.resolve("sgm.channel/sgm.sock")));
      assertEquals("rw-------", mode(dir.resolve(LocalChannel.LOCK_FILE)));
    }
    Path made = dir.resolve("new/data");
    Config fresh = ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, made.toString()), Map.of());
    try (SharedDirectory shared = SharedDirectory.open(fresh, "cli")) {
      assertTrue(shared.operations().contains("store"));
      assertEquals("rwx------", mode(made), "a data directory made by sgm is the user's alone");
    }
  }

  private static String mode(Path path) throws java.io.IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  private Config config(String key, String value) {
    return ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString(), key, value), Map.of());
  }

  /** Stores notes {@code from} to {@code to} (exclusive) in batches. */
  private static void storeNotes(SharedDirectory shared, int from, int to) {
    for (int start = from; start < to; start += 1000) {
      com.fasterxml.jackson.databind.node.ArrayNode records = Json.array();
      for (int i = start; i < Math.min(to, start + 1000); i++) {
        records.add(
            Json.object()
                .put("id", "n" + i)
                .put("type", "note")
                .put("content", "note number " + i + " about reindexing through the holder")
                .<com.fasterxml.jackson.databind.node.ObjectNode>set(
                    "scope", Json.object().put("project", "p"))
                .set("provenance", Json.object().put("agent", "a")));
      }
      com.fasterxml.jackson.databind.node.ObjectNode request = Json.object();
      request.set("records", records);
      shared.call("store_batch", request);
    }
  }

  @Test
  void reindexRunsInTheHolderWithProgressAndOutlastsTheChannelTimeout() {
    try (SharedDirectory holder = SharedDirectory.open(config(), "cli");
        SharedDirectory client =
            SharedDirectory.open(config(LocalChannel.TIMEOUT_KEY, "1000"), "cli")) {
      assertTrue(client.storageDescription().contains("held by another process"));
      // A call that outlasts the client's 1 s timeout only survives because the holder keeps
      // telling the client it is at work. How many records make a rebuild that long depends on the
      // machine, so the records double until the rebuild through the channel takes longer.
      int records = 0;
      long millis = 0;
      java.util.List<long[]> reports = new java.util.concurrent.CopyOnWriteArrayList<>();
      while (millis <= 1000) {
        assertTrue(records < 2_560_000, "no rebuild outlasted the timeout up to " + records);
        int more = Math.max(5000, records);
        storeNotes(holder, records, records + more);
        records += more;
        reports.clear();
        long started = System.nanoTime();
        long indexed = client.reindex((done, total) -> reports.add(new long[] {done, total}));
        millis = (System.nanoTime() - started) / 1_000_000;
        assertEquals(records, indexed);
      }
      assertTrue(reports.size() >= 2, "progress came through the channel: " + reports.size());
      long[] last = reports.get(reports.size() - 1);
      assertEquals(records, last[1], "the total is the holder's record count");
      assertTrue(last[0] > 0 && last[0] <= records);
      // Fast calls after a long one go on as before.
      assertEquals("n7", read(client, "n7").path("record").path("id").asText());
    }
  }

  @Test
  void aTimeoutShorterThanAFewInterimFramesIsRefused() {
    dev.sgm.api.SgmException refused =
        org.junit.jupiter.api.Assertions.assertThrows(
            dev.sgm.api.SgmException.class,
            () -> SharedDirectory.open(config(LocalChannel.TIMEOUT_KEY, "200"), "cli"));
    assertEquals(dev.sgm.api.ErrorCode.INVALID_REQUEST, refused.code());
    assertTrue(refused.getMessage().contains(LocalChannel.TIMEOUT_KEY), refused.getMessage());
  }

  @Test
  void anInMemoryStoreIsNotShared() {
    Config memory =
        ConfigLoader.load(
            Map.of(ConfigLoader.DATA_DIR, dir.toString(), ConfigLoader.STORAGE_MEMORY, "true"),
            Map.of());
    try (SharedDirectory shared = SharedDirectory.open(memory, "cli")) {
      shared.call("store", note("n", null));
      assertFalse(Files.exists(dir.resolve("sgm.channel")));
      assertFalse(Files.exists(dir.resolve(LocalChannel.LOCK_FILE)));
    }
  }

  @Test
  void onlyCallsWhoseDeclaredEffectCannotChangeAreSentAgainAfterALostAnswer() {
    try (SharedDirectory holder = SharedDirectory.open(config(), "cli");
        SharedDirectory client = SharedDirectory.open(config(), "cli")) {
      for (SharedDirectory shared : java.util.List.of(holder, client)) {
        assertTrue(shared.sameEffectIfSentAgain("read", Json.object()));
        assertTrue(shared.sameEffectIfSentAgain("retrieve", Json.object()));
        assertTrue(shared.sameEffectIfSentAgain("store", note("n", null)));
        assertTrue(shared.sameEffectIfSentAgain("put_content", Json.object()));
        assertFalse(
            shared.sameEffectIfSentAgain(
                "store", Json.object().put("expected_version", 3).set("record", Json.object())));
        assertFalse(
            shared.sameEffectIfSentAgain("store_batch", Json.object().put("if_absent", true)));
        assertFalse(shared.sameEffectIfSentAgain("delete", Json.object()));
        // Profile operations say what they do in their declarations, read through the holder.
        assertTrue(shared.sameEffectIfSentAgain("history.versions", Json.object()));
        assertTrue(shared.sameEffectIfSentAgain("tasks.ready", Json.object()));
        assertFalse(shared.sameEffectIfSentAgain("tasks.claim", Json.object()));
        assertFalse(shared.sameEffectIfSentAgain("no.such_operation", Json.object()));
        assertTrue(shared.sameEffectIfSentAgain(LocalChannel.REINDEX, Json.object()));
      }
    }
  }
}
