package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.InputFormat;
import com.networknt.schema.SchemaRegistry;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.Scope;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Every operation declares the JSON Schema of its response, and its responses match it: the
 * conformance suites run through a {@link SchemaCheckedClient}, which checks every successful
 * response of every call against what discovery declares, and the operations and shapes the suites
 * do not reach (a lease renewed, redacted records, a lookup stopped at its scan limit) are called
 * here through it too. A declaration that is wrong would break a client that validates results, as
 * the MCP TypeScript client does with each tool's outputSchema.
 */
class ResponseSchemasTest {
  /** The client the suites below run against; set by the test that runs them. */
  private static volatile SchemaCheckedClient checked;

  private static SchemaCheckedClient checked() {
    SchemaCheckedClient client = checked;
    if (client == null) {
      synchronized (ResponseSchemasTest.class) {
        if (checked == null) {
          checked = SchemaCheckedClient.of(InProcess.client());
        }
        client = checked;
      }
    }
    return client;
  }

  static class CheckedContract extends ContractTck {
    @Override
    protected SgmClient client() {
      return checked();
    }
  }

  static class CheckedCore extends CoreConformanceTck {
    @Override
    protected SgmClient client() {
      return checked();
    }
  }

  static class CheckedCollaboration extends CollaborationTck {
    @Override
    protected SgmClient client() {
      return checked();
    }
  }

  static class CheckedHistory extends HistoryTck {
    @Override
    protected SgmClient client() {
      return checked();
    }
  }

  static class CheckedCode extends CodeTck {
    @Override
    protected SgmClient client() {
      return checked();
    }
  }

  static class CheckedChanges extends ChangesTck {
    @Override
    protected SgmClient client() {
      return checked();
    }
  }

  static class CheckedAuthorization extends AuthorizationTck {
    @Override
    protected SgmClient client() {
      return checked();
    }

    @Override
    protected SgmClient readerOf(ObjectNode scope) {
      return checked().around(InProcess.readerOf(scope));
    }
  }

  static class CheckedRelevance extends RelevanceTck {
    @Override
    protected SgmClient client() {
      return checked();
    }
  }

  private static final List<Class<?>> SUITES =
      List.of(
          CheckedContract.class,
          CheckedCore.class,
          CheckedCollaboration.class,
          CheckedHistory.class,
          CheckedCode.class,
          CheckedChanges.class,
          CheckedAuthorization.class,
          CheckedRelevance.class);

  private static JsonNode operations() {
    return InProcess.client().call("discover", Json.object()).path("operations");
  }

  @Test
  void everyOperationDeclaresAResponseSchema() {
    JsonNode operations = operations();
    SchemaRegistry registry = SchemaCheckedClient.registry();
    List<String> problems = new ArrayList<>();
    for (JsonNode operation : operations) {
      String name = operation.path("name").asText();
      JsonNode declared = operation.path("response_schema");
      if (!declared.isObject()) {
        problems.add(name + ": no response_schema");
        continue;
      }
      // Every declaration compiles, its references to the published schemas resolved.
      registry.getSchema(Json.write(declared), InputFormat.JSON);
      if (operation.path("capability").asText().equals("core")) {
        continue;
      }
      // A profile's response is an object (an MCP outputSchema must be), open to new fields, and
      // refers to nothing a client cannot have but the published record schema.
      if (!declared.path("type").asText().equals("object")) {
        problems.add(name + ": the root is not {\"type\": \"object\"}");
      }
      if (!declared.path("additionalProperties").asBoolean(true)) {
        problems.add(name + ": refuses fields a later version may add");
      }
      for (String ref : refs(declared, new ArrayList<>())) {
        if (!ref.startsWith("#") && !ref.startsWith(JsonSchemas.MEMORY_SCHEMA)) {
          problems.add(name + ": refers to " + ref);
        }
      }
    }
    assertEquals(List.of(), problems);
    assertTrue(operations.size() >= 26, operations.size() + " operations");
  }

  private static List<String> refs(JsonNode schema, List<String> found) {
    if (schema.isObject()) {
      schema
          .properties()
          .forEach(
              field -> {
                if (field.getKey().equals("$ref") && field.getValue().isTextual()) {
                  found.add(field.getValue().textValue());
                } else {
                  refs(field.getValue(), found);
                }
              });
    } else if (schema.isArray()) {
      schema.forEach(item -> refs(item, found));
    }
    return found;
  }

  @Test
  void theCheckFailsAResponseWithoutAFieldItsSchemaRequires() {
    ObjectNode declared =
        JsonSchemas.object()
            .required("greeting", JsonSchemas.text("What it says."))
            .required("count", Json.object().put("type", "integer"))
            .build();
    ArrayNode operations = Json.array();
    operations.addObject().put("name", "greet").set("response_schema", declared);
    operations.addObject().put("name", "undeclared");
    SgmClient answers = (operation, request) -> Json.parse("{\"greeting\": \"Hello!\"}");
    SchemaCheckedClient client = SchemaCheckedClient.of(answers, operations);

    AssertionError missing =
        assertThrows(AssertionError.class, () -> client.call("greet", Json.object()));
    assertTrue(missing.getMessage().contains("greet"), missing.getMessage());
    assertTrue(missing.getMessage().contains("count"), missing.getMessage());
    assertTrue(missing.getMessage().contains("{\"greeting\":\"Hello!\"}"), missing.getMessage());
    AssertionError undeclared =
        assertThrows(AssertionError.class, () -> client.call("undeclared", Json.object()));
    assertTrue(undeclared.getMessage().contains("no response_schema"), undeclared.getMessage());
    assertThrows(AssertionError.class, () -> client.call("unlisted", Json.object()));
    assertEquals(3, client.mismatches().size());
    assertEquals(Set.of(), client.checked());

    // The published record schema is resolved (from docs/spec), and formats are asserted.
    ArrayNode published = Json.array();
    published
        .addObject()
        .put("name", "recall")
        .set(
            "response_schema",
            JsonSchemas.object()
                .required("record", JsonSchemas.ref(JsonSchemas.MEMORY_SCHEMA))
                .optional("at", JsonSchemas.dateTime(null))
                .build());
    String record = "{'type': 'note', 'scope': {'p': 'x'}, 'provenance': {'agent': 'a'}";
    SchemaCheckedClient valid =
        SchemaCheckedClient.of(
            (o, r) -> json("{'record': " + record + ", 'id': 'n1'}}"), published);
    valid.call("recall", Json.object());
    assertEquals(Set.of("recall"), valid.checked());
    for (String wrong :
        List.of(
            "{'record': " + record + ", 'id': 'n 1'}}",
            "{'record': " + record + "}}",
            "{'record': " + record + ", 'id': 'n1'}, 'at': 'yesterday'}")) {
      SchemaCheckedClient strict = SchemaCheckedClient.of((o, r) -> json(wrong), published);
      assertThrows(AssertionError.class, () -> strict.call("recall", Json.object()), wrong);
    }

    // A response that matches passes unchanged; an error passes through as it was.
    SchemaCheckedClient matching =
        SchemaCheckedClient.of(
            (operation, request) -> Json.parse("{\"greeting\": \"Hello!\", \"count\": 1}"),
            operations);
    assertEquals(1, matching.call("greet", Json.object()).path("count").asInt());
    assertEquals(Set.of("greet"), matching.checked());
    SchemaCheckedClient failing =
        SchemaCheckedClient.of(
            (operation, request) -> {
              throw new SgmException(ErrorCode.NOT_FOUND, "no such greeting");
            },
            operations);
    assertThrows(SgmException.class, () -> failing.call("greet", Json.object()));
    assertEquals(List.of(), failing.mismatches());
  }

  @Test
  void everyResponseOfEveryOperationMatchesItsDeclaredSchema() {
    SchemaCheckedClient client = SchemaCheckedClient.of(InProcess.client());
    checked = client;

    List<String> failed = new ArrayList<>();
    for (Class<?> suite : SUITES) {
      Set<String> passed = new TreeSet<>();
      LauncherFactory.create()
          .execute(
              LauncherDiscoveryRequestBuilder.request().selectors(selectClass(suite)).build(),
              new TestExecutionListener() {
                @Override
                public void executionFinished(TestIdentifier id, TestExecutionResult result) {
                  if (id.isTest() && id.getSource().orElse(null) instanceof MethodSource m) {
                    switch (result.getStatus()) {
                      case SUCCESSFUL -> passed.add(m.getMethodName());
                      case FAILED ->
                          failed.add(
                              suite.getSimpleName()
                                  + "."
                                  + m.getMethodName()
                                  + ": "
                                  + result.getThrowable().map(Throwable::getMessage).orElse(""));
                      case ABORTED -> {}
                    }
                  }
                }
              });
      assertFalse(passed.isEmpty(), suite.getSimpleName() + " ran nothing");
    }
    assertEquals(List.of(), failed, "the suites, every response checked");

    exerciseWhatTheSuitesLeaveOut(client);
    exerciseTheScanLimit();
    exerciseTokens(client);

    assertEquals(List.of(), client.mismatches());
    Set<String> unchecked = new TreeSet<>();
    operations().forEach(op -> unchecked.add(op.path("name").asText()));
    unchecked.removeAll(client.checked());
    assertEquals(Set.of(), unchecked, "operations no response of which was checked");
  }

  /** Token administration, which no suite runs as the owner of an in-process engine. */
  private static void exerciseTokens(SgmClient client) {
    JsonNode created =
        client.call(
            "tokens.create",
            json(
                "{'principal': 'schemas', 'grants': ['project=schemas:read'], 'expires_in': '1h'}"));
    client.call("tokens.list", Json.object());
    client.call("tokens.revoke", Json.object().put("id", created.path("id").asText()));
    JsonNode page = client.call("secrets.scan", Json.object().put("limit", 1));
    while (page.hasNonNull("next_cursor")) {
      page =
          client.call(
              "secrets.scan",
              Json.object().put("limit", 1000).put("cursor", page.path("next_cursor").asText()));
    }
  }

  private static String unique() {
    return "response-schemas-" + UUID.randomUUID().toString().substring(0, 12);
  }

  private static ObjectNode json(String text) {
    return (ObjectNode) Json.parse(text.replace('\'', '"'));
  }

  private static ObjectNode record(ObjectNode scope, String id, String type, String data) {
    ObjectNode record = json("{'id': '" + id + "', 'type': '" + type + "'}");
    record.set("scope", scope.deepCopy());
    record.putObject("provenance").put("agent", "agent-" + id);
    if (data != null) {
      record.set("data", json(data));
    }
    return record;
  }

  private static ObjectNode confidential(ObjectNode record) {
    record.putObject("sensitivity").put("level", "confidential");
    return record;
  }

  private static void store(SgmClient client, ObjectNode record) {
    ObjectNode request = Json.object();
    request.set("record", record);
    client.call("store", request);
  }

  private static ObjectNode request(ObjectNode scope, String fields) {
    ObjectNode request = json(fields);
    request.set("scope", scope.deepCopy());
    return request;
  }

  /**
   * The operations no suite calls, the optional fields the suites' calls never bring back
   * (next_cursor), and every listing profile operation as a caller below the records' sensitivity
   * sees it: with redacted records.
   */
  private static void exerciseWhatTheSuitesLeaveOut(SchemaCheckedClient client) {
    ObjectNode scope = json("{'project': '" + unique() + "'}");
    client.call("whoami", Json.object());
    client.call("scopes", Json.object());

    store(client, record(scope, "t1", "task", "{'state': 'open'}"));
    client.call("tasks.claim", request(scope, "{'id': 't1', 'agent': 'a', 'lease_ms': 60000}"));
    client.call("tasks.heartbeat", request(scope, "{'id': 't1', 'agent': 'a'}"));

    store(client, record(scope, "n1", "note", null).put("content", "first"));
    store(client, record(scope, "n1", "note", null).put("content", "second"));
    JsonNode page = client.call("history.versions", request(scope, "{'id': 'n1', 'limit': 1}"));
    assertTrue(page.has("next_cursor"), page::toString);

    // Above a reader's clearance, records come back redacted; the declarations must allow that.
    store(client, confidential(record(scope, "t2", "task", "{'state': 'open'}")));
    store(
        client,
        confidential(record(scope, "r1", "rule", "{'statement': 's', 'severity': 'must'}")));
    store(
        client,
        confidential(
            record(scope, "s1", "status", "{'state': 'busy', 'as_of': '2026-01-01T00:00:00Z'}")));
    store(client, confidential(record(scope, "n2", "note", null).put("content", "secret")));
    store(
        client,
        confidential(
            record(
                scope,
                "h1",
                "handoff",
                "{'from_agent': 'a', 'state': 'open', 'summary': 's', 'context': ['n2', 'gone']}")));
    store(
        client,
        confidential(
            record(
                scope, "y1", "symbol", "{'name': 'Engine', 'kind': 'class', 'path': 'E.java'}")));
    client.call("snapshots.create", request(scope, "{'name': 'before'}"));
    SchemaCheckedClient low =
        client.around(
            InProcess.client(
                Caller.authenticated(
                    "low",
                    "embedded",
                    new Grants(
                        List.of(
                            new Grants.Grant(
                                Scope.fromJson(scope, "scope", ErrorCode.INVALID_REQUEST),
                                Grants.Access.READ)),
                        Set.of(Grants.ANY_AGENT),
                        Sensitivity.PUBLIC))));
    List<JsonNode> responses = new ArrayList<>();
    responses.add(low.call("tasks.ready", request(scope, "{}")));
    responses.add(low.call("rules.active", request(scope, "{}")));
    responses.add(low.call("status.current", request(scope, "{}")));
    responses.add(low.call("handoffs.resume", request(scope, "{'id': 'h1'}")));
    responses.add(low.call("history.versions", request(scope, "{'id': 'n2'}")));
    responses.add(low.call("history.read", request(scope, "{'id': 'n2', 'version': 1}")));
    responses.add(low.call("snapshots.list", request(scope, "{}")));
    ObjectNode asOf = Json.object();
    asOf.set("snapshot", request(scope, "{'name': 'before'}"));
    asOf.set("query", request(scope, "{}"));
    responses.add(low.call("snapshots.retrieve", asOf));
    responses.add(low.call("code.symbols", request(scope, "{'name': 'Engine'}")));
    // Lists decided on data leave out what the clearance withholds; the others show it redacted.
    for (JsonNode response : responses.subList(0, 3)) {
      assertTrue(!response.toString().contains("\"redacted\""), response::toString);
    }
    for (JsonNode response : responses.subList(3, 6)) {
      assertTrue(response.toString().contains("\"redacted\":true"), response::toString);
    }
    // A brief spends no budget on what the clearance withholds: the handoff is confidential.
    JsonNode brief = low.call("context.brief", request(scope, "{'agent': 'a', 'budget': 400}"));
    assertEquals("handoffs", brief.path("sections").get(0).path("name").asText());
    assertEquals(0, brief.path("sections").get(0).path("shown").size(), brief::toString);
    client.call("context.brief", request(scope, "{'agent': 'a'}"));

    boolean example = false;
    for (JsonNode operation : operations()) {
      example |= operation.path("name").asText().equals("example.greet");
    }
    if (example) {
      store(client, record(scope, "g1", "greeting", "{'text': 'hi'}"));
      client.call("example.greet", request(scope, "{'name': 'Ada'}"));
    }
  }

  /** A code lookup stopped by its scan limit says so, with complete: false. */
  private static void exerciseTheScanLimit() {
    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(
                Map.of(ConfigLoader.STORAGE_MEMORY, "true", "code.scan.limit", "3"), Map.of()))) {
      SgmClient real =
          (operation, request) ->
              Json.parse(
                  Json.write(
                      sgm.service()
                          .invoke(Caller.embedded(), operation, Json.parse(Json.write(request)))));
      SchemaCheckedClient client = SchemaCheckedClient.of(real);
      ObjectNode scope = json("{'project': 'scan'}");
      for (int i = 0; i < 5; i++) {
        store(
            client,
            record(
                scope,
                "s" + i,
                "symbol",
                "{'name': 'Name" + i + "', 'kind': 'class', 'path': 'F" + i + ".java'}"));
      }
      JsonNode stopped = client.call("code.symbols", request(scope, "{'prefix': 'Name'}"));
      assertFalse(stopped.path("complete").asBoolean(true), stopped::toString);
      assertEquals(List.of(), client.mismatches());
    }
  }
}
