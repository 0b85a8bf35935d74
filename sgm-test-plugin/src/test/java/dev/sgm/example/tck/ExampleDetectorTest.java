package dev.sgm.example.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.example.ExampleProfileProvider;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A profile's own credential detector runs on every write beside the core's: what it finds is
 * redacted and discovery lists its kind; when it throws, the write fails closed ({@code internal},
 * nothing written, a batch included) and the engine goes on serving.
 */
class ExampleDetectorTest {
  private static ObjectNode note(String id, String content) {
    ObjectNode record = Json.object().put("id", id).put("type", "note").put("content", content);
    record.putObject("scope").put("project", "detector");
    record.putObject("provenance").put("agent", "tester");
    return record;
  }

  private static JsonNode call(SgmRuntime runtime, String operation, JsonNode request) {
    return runtime.service().invoke(Caller.embedded(), operation, request);
  }

  private static JsonNode read(SgmRuntime runtime, String id) {
    ObjectNode request = Json.object().put("id", id);
    request.putObject("scope").put("project", "detector");
    return call(runtime, "read", request);
  }

  @Test
  void aProfilesDetectorRedactsAndAFailingOneFailsTheWriteClosed() {
    try (SgmRuntime runtime =
        SgmRuntime.open(ConfigLoader.load(Map.of(ConfigLoader.STORAGE_MEMORY, "true"), Map.of()))) {
      JsonNode discovery = call(runtime, "discover", Json.object());
      assertTrue(
          discovery.path("secrets").path("detectors").toString().contains("\"example_token\""),
          discovery.path("secrets").toString());

      call(
          runtime,
          "store",
          Json.object().set("record", note("kept", "use exmpl_0123456789abcdef for the demo")));
      assertEquals(
          "use [REDACTED:example_token] for the demo",
          read(runtime, "kept").path("record").path("content").asText());

      SgmException broken =
          assertThrows(
              SgmException.class,
              () ->
                  call(
                      runtime,
                      "store",
                      Json.object()
                          .set(
                              "record",
                              note("broken", "text " + ExampleProfileProvider.BREAK_DETECTOR))));
      assertEquals(ErrorCode.INTERNAL, broken.code(), broken.getMessage());
      assertTrue(broken.getMessage().contains("nothing was written"), broken.getMessage());
      assertEquals(
          ErrorCode.NOT_FOUND,
          assertThrows(SgmException.class, () -> read(runtime, "broken")).code());

      ObjectNode batch = Json.object();
      batch
          .putArray("records")
          .add(note("first", "an ordinary note"))
          .add(note("second", ExampleProfileProvider.BREAK_DETECTOR));
      assertEquals(
          ErrorCode.INTERNAL,
          assertThrows(SgmException.class, () -> call(runtime, "store_batch", batch)).code());
      assertEquals(
          ErrorCode.NOT_FOUND,
          assertThrows(SgmException.class, () -> read(runtime, "first")).code(),
          "no record of a failed batch is written");

      call(runtime, "store", Json.object().set("record", note("after", "still serving")));
      assertEquals("still serving", read(runtime, "after").path("record").path("content").asText());
    }
  }
}
