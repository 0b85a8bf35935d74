package dev.sgm.transport.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Both eras of MCP on one endpoint: 2026-07-28 requests stand alone (their version and capabilities
 * in {@code _meta}, mirrored in headers), answer {@code server/discover}, carry {@code resultType}
 * and cache hints, and listen with {@code subscriptions/listen}; the 2025 revisions begin with
 * {@code initialize} and agree on the version asked for. Bad envelopes get the protocol's errors
 * and statuses, naming what is wrong.
 */
class McpRevisionsTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private record Answer(int status, JsonNode body) {}

  private static ObjectNode modern(Object id, String method, ObjectNode params) {
    ObjectNode message = Json.object().put("jsonrpc", "2.0").put("method", method);
    if (id instanceof String s) {
      message.put("id", s);
    } else {
      message.put("id", (Integer) id);
    }
    ObjectNode withMeta = params == null ? Json.object() : params;
    McpProtocol.envelopeOf(withMeta, "revisions-test");
    message.set("params", withMeta);
    return message;
  }

  /** POSTs {@code message} with the given headers (null values left out). */
  private static Answer post(String url, JsonNode message, Map<String, String> headers)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofString(Json.write(message)));
    headers.forEach(
        (name, value) -> {
          if (value != null) {
            request.header(name, value);
          }
        });
    HttpResponse<String> response =
        HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(
        response.statusCode(), response.body().isEmpty() ? null : Json.parse(response.body()));
  }

  /** POSTs a 2026-07-28 request with the headers a client mirrors from it. */
  private static Answer postModern(String url, ObjectNode message) throws Exception {
    String method = message.path("method").asText();
    JsonNode name = message.path("params").path(method.equals("resources/read") ? "uri" : "name");
    return post(
        url,
        message,
        Map.of(
            "MCP-Protocol-Version",
            McpProtocol.MODERN,
            "Mcp-Method",
            method,
            "Mcp-Name",
            name.isTextual() ? name.textValue() : ""));
  }

  private static String endpoint() throws Exception {
    return McpServers.shared().endpoint();
  }

  @Test
  void serverDiscoverOffersEveryRevisionWithoutASession() throws Exception {
    Answer answer = postModern(endpoint(), modern("d-1", "server/discover", null));
    assertEquals(200, answer.status());
    assertEquals("d-1", answer.body().path("id").textValue(), "a string id comes back a string");
    JsonNode result = answer.body().path("result");
    assertEquals("complete", result.path("resultType").asText());
    List<String> versions = new ArrayList<>();
    result.path("supportedVersions").forEach(v -> versions.add(v.asText()));
    assertEquals(
        List.of("2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"), versions);
    assertTrue(result.path("capabilities").has("tools"));
    assertTrue(result.path("instructions").asText().contains("recall"));
    assertEquals(
        "sgm-java",
        result.path("_meta").path(McpProtocol.META_SERVER).path("name").asText(),
        result.toString());
    assertTrue(result.path("ttlMs").isIntegralNumber(), result.toString());
  }

  @Test
  void modernResultsCarryTheirTypeAndListsTheirCacheHints() throws Exception {
    String url = endpoint() + "?project=modern-mcp&agent=modern";
    JsonNode tools = postModern(url, modern(1, "tools/list", null)).body().path("result");
    assertEquals("complete", tools.path("resultType").asText());
    assertTrue(tools.path("ttlMs").isIntegralNumber());
    assertEquals("public", tools.path("cacheScope").asText());
    JsonNode store = null;
    for (JsonNode tool : tools.path("tools")) {
      assertTrue(tool.path("outputSchema").isObject(), tool.path("name").asText());
      assertTrue(tool.path("annotations").has("readOnlyHint"), tool.path("name").asText());
      assertFalse(tool.path("title").asText().isBlank(), tool.path("name").asText());
      if (tool.path("name").asText().equals("sgm_store")) {
        store = tool;
      }
    }
    assertFalse(store.path("annotations").path("readOnlyHint").asBoolean());
    assertTrue(store.path("annotations").path("idempotentHint").asBoolean());
    ObjectNode call = Json.object().put("name", "sgm_store");
    call.putObject("arguments").put("id", "m1").put("content", "stored statelessly");
    JsonNode stored = postModern(url, modern(2, "tools/call", call)).body().path("result");
    assertEquals("complete", stored.path("resultType").asText());
    assertFalse(stored.path("isError").asBoolean(), stored.toString());
    assertFalse(stored.has("ttlMs"), "a tool call is not cached");
    assertEquals(
        "modern",
        stored.path("structuredContent").path("record").path("provenance").path("agent").asText());
    JsonNode resources = postModern(url, modern(3, "resources/list", null)).body().path("result");
    assertEquals("private", resources.path("cacheScope").asText());
    assertEquals(0, resources.path("ttlMs").asInt());
    Answer missing =
        postModern(
            url,
            modern(
                4,
                "resources/read",
                Json.object().put("uri", "sgm://record/project%3Dmodern-mcp/nothing")));
    assertEquals(-32602, missing.body().path("error").path("code").asInt(), missing.toString());
    assertEquals(
        "sgm://record/project%3Dmodern-mcp/nothing",
        missing.body().path("error").path("data").path("uri").asText());
  }

  @Test
  void aRequestWithNeitherAVersionNorASessionIsToldWhatIsMissing() throws Exception {
    ObjectNode bare = Json.object().put("jsonrpc", "2.0").put("id", 5).put("method", "tools/list");
    Answer answer = post(endpoint(), bare, Map.of());
    assertEquals(400, answer.status());
    assertEquals(-32602, answer.body().path("error").path("code").asInt());
    assertTrue(
        answer.body().path("error").path("message").asText().contains(McpProtocol.META_VERSION),
        answer.toString());
    // Over stdio, without a session to name, the same rule.
    McpServer server = new McpServer((op, request) -> Json.object(), List.of(), "test");
    JsonNode stdio = server.handle(bare, new McpConnection(McpDefaults.none(), null)).message();
    assertEquals(-32602, stdio.path("error").path("code").asInt());
    assertTrue(stdio.path("error").path("message").asText().contains("initialize"));
  }

  @Test
  void anUnsupportedVersionIsAnsweredWithTheVersionsOffered() throws Exception {
    ObjectNode message = modern(6, "tools/list", null);
    ((ObjectNode) message.path("params").path("_meta")).put(McpProtocol.META_VERSION, "2099-01-01");
    Answer answer =
        post(
            endpoint(),
            message,
            Map.of("MCP-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list"));
    assertEquals(400, answer.status());
    JsonNode error = answer.body().path("error");
    assertEquals(-32022, error.path("code").asInt());
    assertEquals("2099-01-01", error.path("data").path("requested").asText());
    assertEquals("2026-07-28", error.path("data").path("supported").get(0).asText());
    assertEquals(6, answer.body().path("id").asInt());
  }

  @Test
  void aMalformedEnvelopeNamesTheField() throws Exception {
    ObjectNode noCapabilities = modern(7, "tools/list", null);
    ((ObjectNode) noCapabilities.path("params").path("_meta"))
        .remove(McpProtocol.META_CAPABILITIES);
    Answer missing = postModern(endpoint(), noCapabilities);
    assertEquals(400, missing.status());
    assertEquals(-32602, missing.body().path("error").path("code").asInt());
    assertTrue(
        missing
            .body()
            .path("error")
            .path("message")
            .asText()
            .contains(McpProtocol.META_CAPABILITIES));
    ObjectNode notAnObject =
        Json.object().put("jsonrpc", "2.0").put("id", 8).put("method", "tools/list");
    notAnObject.putObject("params").put("_meta", "2026-07-28");
    Answer malformed = post(endpoint(), notAnObject, Map.of("Mcp-Method", "tools/list"));
    assertEquals(400, malformed.status());
    assertTrue(
        malformed.body().path("error").path("message").asText().contains("params._meta"),
        malformed.toString());
  }

  @Test
  void headersThatDisagreeWithTheBodyAreRefused() throws Exception {
    ObjectNode call = Json.object().put("name", "sgm_whoami");
    call.putObject("arguments");
    ObjectNode message = modern(9, "tools/call", call);
    Answer wrongMethod =
        post(
            endpoint(),
            message,
            Map.of(
                "MCP-Protocol-Version",
                "2026-07-28",
                "Mcp-Method",
                "tools/list",
                "Mcp-Name",
                "sgm_whoami"));
    assertEquals(400, wrongMethod.status());
    assertEquals(-32020, wrongMethod.body().path("error").path("code").asInt());
    assertTrue(wrongMethod.body().path("error").path("message").asText().contains("Mcp-Method"));
    Answer wrongName =
        post(
            endpoint(),
            message,
            Map.of(
                "MCP-Protocol-Version",
                "2026-07-28",
                "Mcp-Method",
                "tools/call",
                "Mcp-Name",
                "sgm_store"));
    assertEquals(-32020, wrongName.body().path("error").path("code").asInt());
    Answer noVersion =
        post(endpoint(), message, Map.of("Mcp-Method", "tools/call", "Mcp-Name", "sgm_whoami"));
    assertEquals(400, noVersion.status());
    assertEquals(-32020, noVersion.body().path("error").path("code").asInt());
    // A name outside printable ASCII travels Base64-encoded and is decoded before the comparison.
    ObjectNode read =
        modern(10, "resources/read", Json.object().put("uri", "sgm://record/project%3Dx/é"));
    Answer encoded =
        post(
            endpoint(),
            read,
            Map.of(
                "MCP-Protocol-Version",
                "2026-07-28",
                "Mcp-Method",
                "resources/read",
                "Mcp-Name",
                McpProtocol.headerValue("sgm://record/project%3Dx/é")));
    assertTrue(encoded.body().path("error").path("code").asInt() != -32020, encoded.toString());
    // An unknown method of the revision is a 404.
    Answer unknown = postModern(endpoint(), modern(11, "ping", null));
    assertEquals(404, unknown.status());
    assertEquals(-32601, unknown.body().path("error").path("code").asInt());
  }

  @Test
  void initializeAgreesOnTheRevisionAskedFor() throws Exception {
    for (String asked : List.of("2025-11-25", "2025-06-18", "2025-03-26")) {
      ObjectNode init =
          Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize");
      init.putObject("params").put("protocolVersion", asked);
      assertEquals(
          asked,
          post(endpoint(), init, Map.of()).body().path("result").path("protocolVersion").asText());
    }
    ObjectNode future =
        Json.object().put("jsonrpc", "2.0").put("id", 1).put("method", "initialize");
    future.putObject("params").put("protocolVersion", "2030-01-01");
    assertEquals(
        "2025-11-25",
        post(endpoint(), future, Map.of()).body().path("result").path("protocolVersion").asText());
  }

  @Test
  void aListenStreamSeesAnotherAgentsStoreAfterItsAcknowledgement() throws Exception {
    String project = "listen-mcp";
    String url = endpoint() + "?project=" + project + "&agent=watcher";
    ObjectNode params = Json.object();
    params
        .putObject("notifications")
        .put("resourcesListChanged", true)
        .putArray("resourceSubscriptions")
        .add(McpSubscriptions.scopeUri(dev.sgm.api.Scope.parseCanonical("project=" + project)));
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "subscriptions/listen")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    Json.write(modern("listen:0", "subscriptions/listen", params))))
            .build();
    HttpResponse<InputStream> stream =
        HTTP.send(request, HttpResponse.BodyHandlers.ofInputStream());
    assertEquals(200, stream.statusCode());
    assertEquals("text/event-stream", stream.headers().firstValue("Content-Type").orElse(""));
    try (BufferedReader events =
        new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
      JsonNode ack = nextEvent(events);
      assertEquals("notifications/subscriptions/acknowledged", ack.path("method").asText());
      assertEquals(
          "listen:0",
          ack.path("params").path("_meta").path(McpProtocol.META_SUBSCRIPTION).textValue());
      assertTrue(ack.path("params").path("notifications").path("resourcesListChanged").asBoolean());
      new McpClient(endpoint() + "?project=" + project + "&agent=writer")
          .call(
              "store",
              Json.parse(
                  "{\"record\":{\"id\":\"w1\",\"type\":\"note\",\"scope\":{\"project\":\""
                      + project
                      + "\"},\"content\":\"x\",\"provenance\":{\"agent\":\"writer\"}}}"));
      List<String> seen = new ArrayList<>();
      while (seen.size() < 2) {
        JsonNode notification = nextEvent(events);
        assertEquals(
            "listen:0",
            notification
                .path("params")
                .path("_meta")
                .path(McpProtocol.META_SUBSCRIPTION)
                .textValue());
        seen.add(
            notification.path("method").asText()
                + " "
                + notification.path("params").path("uri").asText(""));
      }
      assertTrue(
          seen.contains(
              "notifications/resources/updated "
                  + McpServer.uri(Json.object().put("project", project), "w1")),
          seen.toString());
      assertTrue(seen.contains("notifications/resources/list_changed "), seen.toString());
    }
  }

  /** The next server-sent event's data, skipping comments. */
  static JsonNode nextEvent(BufferedReader events) throws Exception {
    for (String line = events.readLine(); line != null; line = events.readLine()) {
      if (line.startsWith("data: ")) {
        return Json.parse(line.substring("data: ".length()));
      }
    }
    throw new AssertionError("the stream ended");
  }

  @Test
  void oneStdioProcessServesBothErasAndEndsAListenWhenCancelled() throws Exception {
    BytePipe requests = new BytePipe();
    BytePipe replies = new BytePipe();
    java.io.OutputStream toServer = requests.out();
    java.io.InputStream serverIn = requests.in();
    java.io.OutputStream serverOut = replies.out();
    java.io.InputStream fromServer = replies.in();
    McpServers.Running running = McpServers.shared();
    dev.sgm.api.SgmClient backend =
        (op, request) ->
            running.runtime().service().invoke(dev.sgm.api.Caller.anonymous("mcp"), op, request);
    McpConnection connection =
        new McpConnection(
            new McpDefaults(Json.object().put("project", "stdio-eras"), "stdio"),
            request ->
                running.runtime().service().watch(dev.sgm.api.Caller.anonymous("mcp"), request));
    Thread serving =
        Thread.ofVirtual()
            .start(
                () -> {
                  try (var out = serverOut) {
                    McpStdio.serve(
                        new McpServer(
                            backend,
                            running
                                .runtime()
                                .service()
                                .discover(
                                    dev.sgm.api.Caller.embedded(),
                                    dev.sgm.api.DiscoverRequest.any())
                                .operations(),
                            "test"),
                        connection,
                        serverIn,
                        out);
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
    BufferedReader answers =
        new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8));
    java.util.function.Consumer<JsonNode> send =
        message -> {
          try {
            toServer.write((Json.write(message) + "\n").getBytes(StandardCharsets.UTF_8));
            toServer.flush();
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };
    // A 2026 request first, with no initialize.
    send.accept(modern(1, "tools/list", null));
    assertEquals(
        "complete", Json.parse(answers.readLine()).path("result").path("resultType").asText());
    // Then a 2025 session in the same process.
    send.accept(
        Json.parse(
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}"));
    assertEquals(
        "2025-06-18",
        Json.parse(answers.readLine()).path("result").path("protocolVersion").asText());
    send.accept(Json.parse("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}"));
    JsonNode legacyList = Json.parse(answers.readLine()).path("result");
    assertFalse(legacyList.has("resultType"), "2025 results are as they were");
    // A listen, then a store that it sees, then its cancellation.
    ObjectNode params = Json.object();
    params
        .putObject("notifications")
        .putArray("resourceSubscriptions")
        .add("sgm://scope/project%3Dstdio-eras");
    send.accept(modern("l-1", "subscriptions/listen", params));
    assertEquals(
        "notifications/subscriptions/acknowledged",
        Json.parse(answers.readLine()).path("method").asText());
    ObjectNode call = Json.object().put("name", "sgm_store");
    call.putObject("arguments").put("id", "s1").put("content", "seen by the listen");
    send.accept(modern(4, "tools/call", call));
    boolean stored = false;
    boolean notified = false;
    while (!(stored && notified)) {
      JsonNode line = Json.parse(answers.readLine());
      stored |= line.path("id").asInt() == 4;
      notified |=
          line.path("method").asText().equals("notifications/resources/updated")
              && "l-1"
                  .equals(
                      line.path("params")
                          .path("_meta")
                          .path(McpProtocol.META_SUBSCRIPTION)
                          .textValue());
    }
    send.accept(
        Json.parse(
            "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"l-1\"}}"));
    // A malformed line is answered and the process goes on.
    toServer.write("{not json\n".getBytes(StandardCharsets.UTF_8));
    toServer.flush();
    JsonNode parseError = Json.parse(answers.readLine());
    while (parseError.has("method")) {
      parseError = Json.parse(answers.readLine()); // a notification sent before the cancel
    }
    assertEquals(-32700, parseError.path("error").path("code").asInt());
    send.accept(modern(5, "tools/list", null));
    JsonNode after = Json.parse(answers.readLine());
    assertNull(after.get("error"), after.toString());
    toServer.close();
    serving.join(Duration.ofSeconds(10));
    assertFalse(serving.isAlive());
  }
}
