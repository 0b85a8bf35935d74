package dev.sgm.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.DegradingClient;
import dev.sgm.api.Json;
import org.junit.jupiter.api.Test;

/**
 * Against a server started without the collaboration plugin, a consumer that needs it stores its
 * decision as a note and says so; against one with it, nothing is degraded.
 */
class DegradationTest {
  private static final String DECISION =
      "{\"record\":{\"id\":\"d1\",\"type\":\"decision\",\"scope\":{\"project\":\"degrade\"},"
          + "\"content\":\"Keep H2\",\"provenance\":{\"agent\":\"a\"},"
          + "\"data\":{\"status\":\"accepted\",\"rationale\":\"simple\"}}}";

  /** What the consumer was written against: a server with every standard profile. */
  private static JsonNode expected() throws Exception {
    return HttpServers.shared().client().call("discover", Json.object());
  }

  @Test
  void aDecisionBecomesANoteWhereCollaborationIsNotAdvertised() throws Exception {
    try (HttpServers.Running server = HttpServers.start("profiles.disabled", "collaboration")) {
      DegradingClient client = new DegradingClient(server.client(), expected());
      assertFalse(client.capabilities().contains("collaboration"));
      JsonNode stored = client.call("store", Json.parse(DECISION));
      assertEquals("note", stored.path("record").path("type").asText());
      assertEquals(
          "decision", stored.path("record").path("metadata").path("sgm_degraded_from").asText());
      assertTrue(
          stored.path("degraded").path("reason").asText().contains("collaboration"),
          stored.toString());
      assertEquals(
          "accepted", stored.path("record").path("data").path("status").asText(), "data kept");
    }
  }

  @Test
  void nothingIsDegradedWhereCollaborationIsAdvertised() throws Exception {
    try (HttpServers.Running server = HttpServers.start()) {
      DegradingClient client = new DegradingClient(server.client(), expected());
      JsonNode stored = client.call("store", Json.parse(DECISION));
      assertEquals("decision", stored.path("record").path("type").asText());
      assertFalse(stored.has("degraded"));
    }
  }
}
