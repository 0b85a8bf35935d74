package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What discovery says of the data of each profile-owned type, and of each operation's request, is
 * what the profiles enforce: on samples of every type, the published data schema and the engine
 * accept and refuse the same data. A new owned type must bring its samples here.
 */
class DeclaredSchemasTest {
  private static final SgmClient CLIENT = InProcess.client();

  /** Data objects of each type: the first list is valid, the second invalid. */
  private static final Map<String, List<List<String>>> SAMPLES =
      Map.of(
          "decision",
          List.of(
              List.of(
                  "{'status': 'accepted', 'rationale': 'r'}",
                  "{'status': 'proposed', 'rationale': 'r', 'alternatives': ['a'], 'supersedes': []}"),
              List.of(
                  "{'status': 'maybe', 'rationale': 'r'}",
                  "{'status': 'accepted'}",
                  "{'status': 'accepted', 'rationale': ''}",
                  "{'status': 'accepted', 'rationale': 'r', 'alternatives': [1]}")),
          "rule",
          List.of(
              List.of(
                  "{'statement': 's', 'severity': 'must'}",
                  "{'statement': 's', 'severity': 'may', 'applies_to': ['src/**'], 'active': false}"),
              List.of(
                  "{'statement': 's', 'severity': 'always'}",
                  "{'severity': 'must'}",
                  "{'statement': 's', 'severity': 'must', 'active': 'yes'}")),
          "status",
          List.of(
              List.of(
                  "{'state': 'busy', 'as_of': '2026-01-01T00:00:00Z'}",
                  "{'state': 'x', 'summary': 's', 'progress': 0.5, 'as_of': '2026-01-01T00:00:00Z'}"),
              List.of(
                  "{'state': 'x', 'progress': 2, 'as_of': '2026-01-01T00:00:00Z'}",
                  "{'state': 'x'}")),
          "task",
          List.of(
              List.of(
                  "{'state': 'open'}",
                  "{'state': 'done', 'assignee': 'a', 'priority': 1, 'depends_on': []}"),
              List.of(
                  "{'state': 'someday'}",
                  "{'assignee': 'a'}",
                  "{'state': 'open', 'priority': true}")),
          "handoff",
          List.of(
              List.of("{'from_agent': 'a', 'state': 'open', 'summary': 's', 'next_steps': ['x']}"),
              List.of(
                  "{'from_agent': 'a', 'state': 'open'}",
                  "{'from_agent': 'a', 'state': 'later', 'summary': 's'}")),
          "symbol",
          List.of(
              List.of(
                  "{'name': 'f', 'kind': 'function', 'path': 'a.c'}",
                  "{'name': 'f', 'kind': 'k', 'path': 'p', 'range': {'start_line': 1, 'end_line': 3}}"),
              List.of(
                  "{'name': 'f', 'kind': 'function'}",
                  "{'name': 'f', 'kind': 'k', 'path': 'p', 'range': {'start_line': 0}}")),
          "code_reference",
          List.of(
              List.of(
                  "{'from': {'path': 'a.c', 'line': 3}, 'to': {'symbol': 'f'}, 'kind': 'call'}"),
              List.of(
                  "{'from': {'path': 'a.c'}, 'to': {'symbol': 'f'}, 'kind': 'calls'}",
                  "{'to': {'symbol': 'f'}, 'kind': 'call'}")),
          "diff",
          List.of(
              List.of("{'patch': '--- a/x\\n+++ b/x\\n@@ -1 +1 @@\\n-a\\n+b\\n'}"),
              List.of("{'patch': 5}", "{'patch': 'p', 'base': ''}")));

  private static Schema compile(JsonNode schema) {
    return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12)
        .getSchema(Json.write(schema), InputFormat.JSON);
  }

  private static boolean stored(String type, JsonNode data, int n) {
    ObjectNode record =
        Json.parseObject(
            "{\"id\":\"s"
                + n
                + "\",\"type\":\""
                + type
                + "\",\"scope\":{\"project\":\"declared-schemas\"},\"provenance\":{\"agent\":\"a\"}}",
            "record");
    record.set("data", data);
    ObjectNode request = Json.object();
    request.set("record", record);
    try {
      CLIENT.call("store", request);
      return true;
    } catch (SgmException e) {
      return false;
    }
  }

  @Test
  void theDataSchemasAndTheProfilesAgreeOnEverySample() {
    JsonNode types = CLIENT.call("discover", Json.object()).path("record_types");
    assertEquals(
        new java.util.TreeSet<>(SAMPLES.keySet()),
        new java.util.TreeSet<>(types.properties().stream().map(Map.Entry::getKey).toList()),
        "every owned type has samples");
    List<String> disagreements = new ArrayList<>();
    int n = 0;
    for (Map.Entry<String, List<List<String>>> type : SAMPLES.entrySet()) {
      Schema schema = compile(types.path(type.getKey()).path("data_schema"));
      for (int valid = 0; valid < 2; valid++) {
        for (String sample : type.getValue().get(valid)) {
          JsonNode data = Json.parse(sample.replace('\'', '"'));
          boolean bySchema = schema.validate(Json.write(data), InputFormat.JSON).isEmpty();
          boolean byEngine = stored(type.getKey(), data, n++);
          if (bySchema != (valid == 0) || byEngine != (valid == 0)) {
            disagreements.add(
                type.getKey() + " " + sample + ": schema " + bySchema + ", engine " + byEngine);
          }
        }
      }
    }
    assertEquals(List.of(), disagreements);
  }

  @Test
  void everyRequestSchemaIsADraft202012SchemaClosedLikeItsReader() {
    JsonNode operations = CLIENT.call("discover", Json.object()).path("operations");
    assertTrue(operations.size() >= 26, operations.size() + " operations");
    for (JsonNode operation : operations) {
      JsonNode declared = operation.path("request_schema");
      String name = operation.path("name").asText();
      assertEquals(
          "https://json-schema.org/draft/2020-12/schema", declared.path("$schema").asText(), name);
      compile(declared);
      // Every operation's reader refuses a field it does not know; its schema must say so too.
      assertEquals(false, declared.path("additionalProperties").asBoolean(true), name);
      assertTrue(declared.path("description").isMissingNode() || declared.has("properties"), name);
      assertTrue(!operation.path("description").asText().isBlank(), name);
    }
  }
}
