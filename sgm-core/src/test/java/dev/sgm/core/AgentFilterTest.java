package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A retrieve filter on {@code provenance.agent}: the writer of the current version, nothing else.
 */
class AgentFilterTest {
  private static List<String> ids(JsonNode result) {
    List<String> ids = new ArrayList<>();
    result.path("records").forEach(r -> ids.add(r.path("id").asText()));
    return ids;
  }

  private static JsonNode invoke(SgmService engine, String op, String json) {
    return engine.invoke(Caller.embedded(), op, Json.parse(json.replace('\'', '"')));
  }

  @Test
  void findsTheRecordsAnAgentWrote() {
    try (SgmRuntime runtime = TestRuntimes.open()) {
      SgmService engine = runtime.service();
      String record =
          "{'record':{'id':'%s','type':'note','scope':{'project':'p'},'content':'%s maven',"
              + "'provenance':{'agent':'%s'}}}";
      invoke(engine, "store", record.formatted("a1", "one", "alice"));
      invoke(engine, "store", record.formatted("b1", "two", "bob"));
      invoke(engine, "store", record.formatted("a2", "three", "alice"));
      String query = "{'scope':{'project':'p'},'order_by':'created_at','order':'asc',%s}";
      assertEquals(
          List.of("a1", "a2"),
          ids(
              invoke(
                  engine, "retrieve", query.formatted("'filter':{'provenance.agent':'alice'}"))));
      assertEquals(
          List.of("b1"),
          ids(
              invoke(
                  engine,
                  "retrieve",
                  "{'scope':{'project':'p'},'text':'maven','filter':{'provenance.agent':'bob'}}")));
      // A new version by another agent moves the record to that agent.
      invoke(engine, "store", record.formatted("a1", "one again", "bob"));
      assertEquals(
          List.of("a2"),
          ids(
              invoke(
                  engine, "retrieve", query.formatted("'filter':{'provenance.agent':'alice'}"))));
      assertEquals(
          2,
          invoke(engine, "retrieve", query.formatted("'filter':{'provenance.agent':'bob'}"))
              .path("total")
              .asInt());
      SgmException other =
          assertThrows(
              SgmException.class,
              () ->
                  invoke(
                      engine,
                      "retrieve",
                      query.formatted("'filter':{'provenance.origin':'http'}")));
      assertEquals(ErrorCode.INVALID_REQUEST, other.code());
      assertTrue(other.getMessage().contains("provenance.agent"), other.getMessage());
    }
  }
}
