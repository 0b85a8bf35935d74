package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code scopes}: the scopes holding live records with their counts by type, kept to the caller's
 * grants, narrowed by a scope, following every write and delete.
 */
class ScopesOperationTest {
  private static JsonNode call(SgmService engine, Caller caller, String request) {
    return engine.invoke(caller, "scopes", Json.parse(request.replace('\'', '"')));
  }

  private static void store(SgmService engine, String id, String type, String scope) {
    engine.invoke(
        Caller.embedded(),
        "store",
        Json.parse(
            ("{'record':{'id':'%s','type':'%s','scope':%s,'content':'c','provenance':{'agent':'a'}}}")
                .formatted(id, type, scope)
                .replace('\'', '"')));
  }

  /** The listing as "canonical scope: records {types}" lines, to compare whole. */
  private static List<String> lines(JsonNode result) {
    java.util.ArrayList<String> lines = new java.util.ArrayList<>();
    for (JsonNode item : result.path("scopes")) {
      lines.add(
          dev.sgm.api.Scope.fromJson(item.path("scope"), "scope", ErrorCode.INVALID_REQUEST)
                  .canonical()
              + ": "
              + item.path("records").asLong()
              + " "
              + Json.write(item.path("types")));
    }
    return lines;
  }

  @Test
  void listsEveryScopeWithItsCountsAndFollowsWrites() {
    try (SgmRuntime runtime = TestRuntimes.open()) {
      SgmService engine = runtime.service();
      assertEquals(List.of(), lines(call(engine, Caller.embedded(), "{}")));
      store(engine, "n1", "note", "{'project':'alpha'}");
      store(engine, "n2", "note", "{'project':'alpha'}");
      store(engine, "t1", "task", "{'project':'alpha'}");
      store(engine, "n1", "note", "{'project':'alpha','session':'s1'}");
      store(engine, "n1", "note", "{'project':'beta'}");
      JsonNode all = call(engine, Caller.embedded(), "{}");
      assertEquals(
          List.of(
              "project=alpha: 3 {\"note\":2,\"task\":1}",
              "project=alpha;session=s1: 1 {\"note\":1}",
              "project=beta: 1 {\"note\":1}"),
          lines(all));
      assertEquals(3, all.path("total_scopes").asInt());
      assertEquals(5, all.path("total_records").asInt());

      engine.invoke(
          Caller.embedded(),
          "delete",
          Json.parse("{\"scope\": {\"project\": \"beta\"}, \"id\": \"n1\"}"));
      store(engine, "n3", "note", "{'project':'alpha'}");
      assertEquals(
          List.of(
              "project=alpha: 4 {\"note\":3,\"task\":1}",
              "project=alpha;session=s1: 1 {\"note\":1}"),
          lines(call(engine, Caller.embedded(), "{}")));
      assertEquals(
          List.of("project=alpha;session=s1: 1 {\"note\":1}"),
          lines(call(engine, Caller.embedded(), "{'scope':{'project':'alpha','session':'s1'}}")));
      JsonNode limited = call(engine, Caller.embedded(), "{'limit':1}");
      assertEquals(1, limited.path("scopes").size());
      assertEquals(2, limited.path("total_scopes").asInt());
      assertEquals(5, limited.path("total_records").asInt());
    }
  }

  @Test
  void keepsToTheCallersGrants() {
    try (SgmRuntime runtime = TestRuntimes.open()) {
      SgmService engine = runtime.service();
      store(engine, "n1", "note", "{'project':'alpha'}");
      store(engine, "n1", "note", "{'project':'alpha','session':'s1'}");
      store(engine, "n1", "note", "{'project':'beta'}");
      Caller session =
          Caller.authenticated(
              "p",
              "http",
              new Grants(
                  List.of(Grants.Grant.parse("project=alpha;session=s1:read")),
                  Set.of("bot"),
                  Sensitivity.SECRET));
      JsonNode seen = call(engine, session, "{}");
      assertEquals(List.of("project=alpha;session=s1: 1 {\"note\":1}"), lines(seen));
      assertEquals(1, seen.path("total_records").asInt());
      assertEquals(List.of(), lines(call(engine, session, "{'scope':{'project':'beta'}}")));
    }
  }

  @Test
  void refusesWhatItDoesNotTake() {
    try (SgmRuntime runtime = TestRuntimes.open()) {
      SgmService engine = runtime.service();
      for (String bad :
          List.of("{'limit':0}", "{'limit':10001}", "{'scope':'alpha'}", "{'text':'x'}")) {
        SgmException e =
            assertThrows(SgmException.class, () -> call(engine, Caller.embedded(), bad), bad);
        assertEquals(ErrorCode.INVALID_REQUEST, e.code(), bad);
      }
      assertTrue(engine.operations().contains("scopes"));
    }
  }
}
