package dev.sgm.profile.history;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Turning the profile off at deploy time keeps the history written; turning it on shows it again.
 */
class HistoryToggleTest {
  private static SgmRuntime open(Path dir, boolean history) {
    Map<String, String> options = new HashMap<>();
    options.put(ConfigLoader.DATA_DIR, dir.toString());
    if (!history) {
      options.put("profiles.disabled", "history");
    }
    return SgmRuntime.open(ConfigLoader.load(options, Map.of()));
  }

  private static JsonNode call(SgmRuntime sgm, String op, String json) {
    return sgm.service().invoke(Caller.embedded(), op, Json.parse(json));
  }

  private static final String RECORD =
      "{\"record\":{\"id\":\"t\",\"type\":\"note\",\"scope\":{\"project\":\"toggle\"},\"content\":\"%s\","
          + "\"provenance\":{\"agent\":\"a\"}}}";
  private static final String AT = "{\"scope\":{\"project\":\"toggle\"},\"id\":\"t\"}";

  @Test
  void historySurvivesTheProfileBeingTurnedOff(@TempDir Path dir) {
    try (SgmRuntime sgm = open(dir, true)) {
      call(sgm, "store", RECORD.formatted("v1"));
      call(sgm, "store", RECORD.formatted("v2"));
      assertTrue(sgm.discovery().supports("history"));
    }
    try (SgmRuntime sgm = open(dir, false)) {
      assertFalse(sgm.discovery().supports("history"), "not advertised when disabled");
      SgmException e = assertThrows(SgmException.class, () -> call(sgm, "history.versions", AT));
      assertEquals(ErrorCode.UNSUPPORTED_CAPABILITY, e.code());
      call(sgm, "store", RECORD.formatted("v3"));
      assertFalse(
          call(sgm, "delete", AT).path("soft").asBoolean(), "deletes are physical without it");
      call(sgm, "store", RECORD.formatted("v4"));
    }
    try (SgmRuntime sgm = open(dir, true)) {
      JsonNode versions = call(sgm, "history.versions", AT).path("versions");
      assertEquals(2, versions.size(), "what was written while it was on is all there");
      assertEquals("v2", versions.get(0).path("record").path("content").asText());
      assertEquals("v1", versions.get(1).path("record").path("content").asText());
      assertEquals(
          "v1",
          call(
                  sgm,
                  "history.read",
                  "{\"scope\":{\"project\":\"toggle\"},\"id\":\"t\",\"version\":1}")
              .path("record")
              .path("content")
              .asText());
    }
  }
}
