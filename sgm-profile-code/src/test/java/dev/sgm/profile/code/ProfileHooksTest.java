package dev.sgm.profile.code;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.spi.RecordType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The code profile's hooks keep to their roles: validate only checks, complete derives, and every
 * owned type has its own case.
 */
class ProfileHooksTest {
  private static final String PATCH =
      "--- a/src/A.java\\n+++ b/src/A.java\\n@@ -1,1 +1,2 @@\\n a\\n+b\\n";

  private static ObjectNode diff() {
    return Json.parseObject(
        "{\"id\":\"d\",\"type\":\"diff\",\"scope\":{\"p\":\"x\"},\"provenance\":{\"agent\":\"a\"},"
            + "\"data\":{\"patch\":\""
            + PATCH
            + "\"}}",
        "record");
  }

  @Test
  void validateLeavesTheRecordAsItWasAndCompleteDerivesTheFiles() {
    CodeProfile profile = new CodeProfile(null, CodeProfile.DEFAULT_SCAN_LIMIT);
    ObjectNode record = diff();
    ObjectNode before = record.deepCopy();
    profile.validate(record);
    assertEquals(before, record, "validate changed nothing");
    profile.complete(record);
    assertEquals(List.of("src/A.java"), List.of(record.path("data").path("files").get(0).asText()));
    assertTrue(record.path("data").has("stats"), record.toString());
  }

  @Test
  void everyOwnedTypeIsValidatedByItsOwnRules() {
    CodeProfile profile = new CodeProfile(null, CodeProfile.DEFAULT_SCAN_LIMIT);
    for (RecordType type : profile.recordTypes()) {
      ObjectNode record =
          Json.parseObject(
              "{\"id\":\"r\",\"type\":\""
                  + type.name()
                  + "\",\"scope\":{\"p\":\"x\"},\"provenance\":{\"agent\":\"a\"},\"data\":{}}",
              "record");
      // An empty data object breaks a rule of each type; none falls through to another type's.
      assertThrows(dev.sgm.api.SgmException.class, () -> profile.validate(record), type.name());
    }
    ObjectNode foreign =
        Json.parseObject(
            "{\"id\":\"r\",\"type\":\"note\",\"scope\":{\"p\":\"x\"},\"data\":{}}", "record");
    assertThrows(IllegalStateException.class, () -> profile.validate(foreign));
  }
}
