package dev.sgm.profile.code;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.StoreRequest;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A lookup that reads up to the scan limit says it is incomplete instead of passing for whole. */
class ScanLimitTest {
  @Test
  void aPrefixLookupStoppedByTheScanLimitSaysSo() {
    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(
                Map.of(ConfigLoader.STORAGE_MEMORY, "true", CodeProfile.SCAN_LIMIT, "10"),
                Map.of()))) {
      for (int i = 0; i < 30; i++) {
        sgm.service()
            .store(
                Caller.embedded(),
                StoreRequest.of(
                    Json.parseObject(
                        "{\"id\":\"s"
                            + i
                            + "\",\"type\":\"symbol\",\"scope\":{\"project\":\"p\"},\"data\":{\"name\":\"Name"
                            + i
                            + "\",\"kind\":\"class\",\"path\":\"src/F"
                            + i
                            + ".java\"},\"provenance\":{\"agent\":\"a\"}}",
                        "record")));
      }
      JsonNode byPrefix =
          lookup(sgm, "{\"scope\":{\"project\":\"p\"},\"prefix\":\"Name\",\"limit\":5}");
      assertFalse(byPrefix.path("complete").asBoolean(true), byPrefix.toString());
      assertEquals(5, byPrefix.path("symbols").size());

      JsonNode byName = lookup(sgm, "{\"scope\":{\"project\":\"p\"},\"name\":\"Name7\"}");
      assertEquals(1, byName.path("total").asLong());
      assertFalse(byName.has("complete"), "a lookup that read everything needs no flag: " + byName);
    }
  }

  private static JsonNode lookup(SgmRuntime sgm, String request) {
    return sgm.service().invoke(Caller.embedded(), "code.symbols", Json.parse(request));
  }
}
