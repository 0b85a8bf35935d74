package dev.sgm.embedding.bge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

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

/**
 * A question asked right after a store finds the record by meaning, not by its words alone: a
 * search by meaning waits for the embeddings of the writes before it.
 */
class MeaningRightAfterStoreTest {
  @Test
  void aParaphraseAskedAtOnceFindsTheRecordJustStored(@TempDir Path dir) {
    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()))) {
      for (int round = 0; round < 3; round++) {
        ObjectNode scope = Json.object().put("project", "at-once-" + round);
        for (String[] note :
            List.of(
                new String[] {"lunch", "Lunch is served at noon in the canteen"},
                new String[] {"db", "Persistence is handled by PostgreSQL 15"},
                new String[] {"office", "The office closes early on Fridays"})) {
          ObjectNode record = Json.object().put("id", note[0]).put("type", "note");
          record.set("scope", scope);
          record.put("content", note[1]);
          record.putObject("provenance").put("agent", "test");
          ObjectNode request = Json.object();
          request.set("record", record);
          sgm.service().invoke(Caller.embedded(), "store", request);
        }
        for (String mode : List.of("semantic", "hybrid")) {
          ObjectNode query = Json.object();
          query.set("scope", scope);
          query.put("text", "which database do we use");
          query.put("mode", mode);
          JsonNode found = sgm.service().invoke(Caller.embedded(), "retrieve", query);
          assertEquals(
              "db", found.path("records").path(0).path("id").asText(), mode + ": " + found);
          assertFalse(found.path("retrieval").has("pending_embeddings"), found.toString());
        }
      }
    }
  }
}
