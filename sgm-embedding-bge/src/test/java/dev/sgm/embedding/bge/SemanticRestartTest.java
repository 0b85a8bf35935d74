package dev.sgm.embedding.bge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a server embedded before it stopped still ranks by meaning after it starts again. */
class SemanticRestartTest {
  private static final List<String[]> NOTES =
      List.of(
          new String[] {"lunch", "Lunch is served at noon in the canteen"},
          new String[] {"db", "Persistence is handled by PostgreSQL 15"},
          new String[] {"office", "The office closes early on Fridays"},
          new String[] {"standup", "Standups start at nine sharp"});

  private static SgmRuntime open(Path dir) {
    return SgmRuntime.open(
        ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()));
  }

  private static JsonNode invoke(SgmRuntime sgm, String operation, JsonNode request) {
    return sgm.service().invoke(Caller.embedded(), operation, request);
  }

  private static JsonNode searchByMeaning(SgmRuntime sgm) {
    ObjectNode query = Json.object();
    query.putObject("scope").put("project", "restart");
    query.put("text", "which database do we use");
    query.put("mode", "semantic");
    return invoke(sgm, "retrieve", query);
  }

  private static long pending(SgmRuntime sgm) {
    return invoke(sgm, "discover", Json.object())
        .path("retrieval")
        .path("index")
        .path("pending_embeddings")
        .asLong(-1);
  }

  @Test
  void embeddingsMadeBeforeARestartStillRankByMeaning(@TempDir Path dir) throws Exception {
    JsonNode before;
    try (SgmRuntime sgm = open(dir)) {
      for (String[] note : NOTES) {
        ObjectNode record = Json.object();
        record.put("id", note[0]);
        record.put("type", "note");
        record.putObject("scope").put("project", "restart");
        record.put("content", note[1]);
        record.putObject("provenance").put("agent", "test");
        ObjectNode request = Json.object();
        request.set("record", record);
        invoke(sgm, "store", request);
      }
      // A search waits until the index has applied every store before it, so from here on the
      // notes count as waiting for their embeddings; a count read first could still miss them.
      searchByMeaning(sgm);
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (pending(sgm) != 0 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertEquals(0, pending(sgm), "every note is embedded before the restart");
      // Ranked by meaning before the restart, as after it.
      before = searchByMeaning(sgm);
      assertEquals("db", before.path("records").path(0).path("id").asText(), before.toString());
    }
    try (SgmRuntime sgm = open(dir)) {
      JsonNode found = searchByMeaning(sgm);
      assertEquals(0, pending(sgm), "nothing to embed again: " + found.path("retrieval"));
      assertEquals(
          "db", found.path("records").path(0).path("id").asText(), "ranked by meaning: " + found);
      assertEquals(before.path("records").size(), found.path("records").size());
      for (int i = 0; i < found.path("scores").size(); i++) {
        assertEquals(
            before.path("scores").path(i).asDouble(),
            found.path("scores").path(i).asDouble(),
            1e-6,
            "the embeddings made before the restart rank as before: " + found.path("scores"));
      }
      assertTrue(found.path("scores").path(0).asDouble() > 0, found.path("scores").toString());
    }
  }
}
