package dev.sgm.transport.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmClient;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.tck.RequestFuzzer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Mutated JSON-RPC messages from fixed seeds, over Streamable HTTP (10,000, against a real server
 * on loopback) and over stdio: tool calls with hostile arguments, broken envelopes, broken bytes.
 * No 5xx, no internal error, no stack trace or SQL in any answer, every request with an id
 * answered, and the server still answers afterwards.
 */
class McpFuzzTest {
  private static final int MESSAGES = 10_000;
  private static final int WORKERS = 4;
  private static final String[] METHODS = {
    "tools/call",
    "tools/call",
    "tools/call",
    "tools/call",
    "tools/list",
    "initialize",
    "ping",
    "resources/list",
    "resources/read",
    "resources/templates/list",
    "server/discover",
    "nothing/here"
  };

  /**
   * With authentication on, most messages carry a valid token (granting the fuzzed projects), some
   * a mangled one; the limit on failed attempts is lifted so that the run keeps reaching the tools.
   */
  @ParameterizedTest(name = "auth on: {0}")
  @ValueSource(booleans = {false, true})
  void mutatedMessagesOverHttpGetClearAnswersAndTheServerStaysUp(boolean auth) throws Exception {
    try (McpServers.Running server =
            auth
                ? McpServers.start("auth.enabled", "true", "auth.failure-limit", "1000000")
                : McpServers.start();
        HttpClient http =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS)) {
      String endpoint = server.endpoint() + "?project=fuzz&agent=fuzzer";
      List<Grants.Grant> grants =
          new ArrayList<>(List.of(Grants.Grant.parse("project=fuzz:read_write")));
      for (int w = 0; w < WORKERS; w++) {
        grants.add(Grants.Grant.parse("project=fuzz-" + (35_000 + w) + ":read_write"));
      }
      String token =
          auth
              ? server
                  .runtime()
                  .tokens()
                  .create("fuzzer", grants, Set.of("*"), Sensitivity.SECRET, null)
                  .token()
              : null;
      List<Future<List<String>>> results = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        long seed = 35_000 + w;
        results.add(
            workers.submit(() -> overHttp(http, endpoint, token, seed, MESSAGES / WORKERS)));
      }
      List<String> failures = new ArrayList<>();
      for (Future<List<String>> result : results) {
        failures.addAll(result.get());
      }
      assertTrue(
          failures.isEmpty(),
          failures.size() + " bad answers, e.g. " + failures.stream().limit(5).toList());
      JsonNode tools =
          (token == null
                  ? new McpClient(server.endpoint())
                  : new McpClient(server.endpoint(), token))
              .rpc("tools/list", Json.object());
      assertTrue(tools.path("tools").size() > 5, tools.toString());
    }
  }

  @Test
  void overStdioEveryRequestWithAnIdIsAnsweredAndNoneEndsTheSession() throws Exception {
    try (SgmRuntime runtime =
        SgmRuntime.open(
            ConfigLoader.load(
                Map.of(ConfigLoader.STORAGE_MEMORY, "true", "transports.enabled", "mcp"),
                Map.of()))) {
      SgmClient backend =
          (operation, request) ->
              runtime.service().invoke(dev.sgm.api.Caller.anonymous("mcp"), operation, request);
      McpServer mcp =
          new McpServer(
              backend,
              runtime
                  .service()
                  .discover(dev.sgm.api.Caller.embedded(), dev.sgm.api.DiscoverRequest.any())
                  .operations(),
              "test");
      BytePipe requests = new BytePipe();
      BytePipe replies = new BytePipe();
      java.io.OutputStream toServer = requests.out();
      java.io.InputStream serverIn = requests.in();
      java.io.OutputStream serverOut = replies.out();
      java.io.InputStream fromServer = replies.in();
      Thread serving =
          Thread.ofVirtual()
              .start(
                  () -> {
                    try (OutputStream out = serverOut) {
                      McpStdio.serve(
                          mcp,
                          new McpConnection(
                              new McpDefaults(Json.object().put("project", "fuzz"), "fuzzer"),
                              null),
                          serverIn,
                          out);
                    } catch (java.io.IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  });
      BufferedReader answers =
          new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8));
      RequestFuzzer fuzzer = new RequestFuzzer(45_000);
      List<String> failures = new ArrayList<>();
      // The 2025 messages belong to the session this begins; the 2026 ones stand alone.
      toServer.write(
          "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{}}\n"
              .getBytes(StandardCharsets.UTF_8));
      toServer.flush();
      answers.readLine();
      int stdioMessages = MESSAGES / 5;
      for (int i = 0; i < stdioMessages; i++) {
        byte[] line = message(fuzzer, i);
        for (int b = 0; b < line.length; b++) {
          if (line[b] == '\n' || line[b] == '\r') {
            line[b] = ' '; // one message per line: a newline would make two
          }
        }
        boolean expectsAnswer = expectsAnswer(line);
        toServer.write(line);
        toServer.write('\n');
        // A ping after each message marks where its answers end.
        toServer.write(
            ("{\"jsonrpc\":\"2.0\",\"id\":\"mark-" + i + "\",\"method\":\"ping\"}\n")
                .getBytes(StandardCharsets.UTF_8));
        toServer.flush();
        int answered = 0;
        for (String answer = answers.readLine(); ; answer = answers.readLine()) {
          if (answer == null) {
            failures.add(
                "#"
                    + i
                    + " ended the session: "
                    + abbreviate(new String(line, StandardCharsets.UTF_8)));
            break;
          }
          if (answer.contains("\"mark-" + i + "\"")) {
            break;
          }
          answered++;
          String problem = problem(200, answer);
          if (problem != null) {
            failures.add(
                "#"
                    + i
                    + " "
                    + abbreviate(new String(line, StandardCharsets.UTF_8))
                    + " -> "
                    + problem);
          }
        }
        if (expectsAnswer && answered == 0) {
          failures.add(
              "#" + i + " got no answer: " + abbreviate(new String(line, StandardCharsets.UTF_8)));
        }
        if (failures.size() > 20) {
          break;
        }
      }
      toServer.close();
      serving.join(Duration.ofSeconds(10));
      assertTrue(
          failures.isEmpty(),
          failures.size() + " bad answers, e.g. " + failures.stream().limit(5).toList());
    }
  }

  @Test
  void aMessageWithAnIdButNoMethodIsAnInvalidRequest() {
    McpServer mcp = new McpServer((operation, request) -> Json.object(), List.of(), "test");
    McpConnection connection = new McpConnection(McpDefaults.none(), null);
    ObjectNode answer =
        mcp.handle(Json.parse("{\"jsonrpc\":\"2.0\",\"id\":7}"), connection).message();
    assertEquals(-32600, answer.path("error").path("code").asInt(), String.valueOf(answer));
    assertEquals(7, answer.path("id").asInt());
    // A response from the client (it has a result) is not answered.
    assertEquals(
        null,
        mcp.handle(Json.parse("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}"), connection)
            .message());
  }

  /**
   * True when JSON-RPC says {@code line} must be answered: unparseable, or a request with an id.
   */
  private static boolean expectsAnswer(byte[] line) {
    JsonNode json;
    try {
      json = Json.parse(line);
    } catch (RuntimeException e) {
      return new String(line, StandardCharsets.UTF_8).isBlank() ? false : true;
    }
    if (!json.isObject()) {
      return true;
    }
    JsonNode id = json.get("id");
    return id != null
        && (id.isTextual() || id.isNumber())
        && !json.has("result")
        && !json.has("error");
  }

  private static List<String> overHttp(
      HttpClient http, String endpoint, String token, long seed, int count) throws Exception {
    String authorization = token == null ? null : "Bearer " + token;
    HttpResponse<String> init =
        http.send(
            post(endpoint, null, authorization)
                .POST(
                    HttpRequest.BodyPublishers.ofString(
                        "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{}}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
    RequestFuzzer fuzzer = new RequestFuzzer(seed, "fuzz-" + seed);
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      byte[] body = message(fuzzer, i);
      HttpRequest.Builder builder =
          post(
              endpoint,
              fuzzer.nextInt(50) == 0 ? "nope" : session,
              authorization != null && fuzzer.nextInt(10) == 0
                  ? authorization.substring(0, fuzzer.nextInt(authorization.length()))
                  : authorization);
      mirroredHeaders(body, builder);
      HttpRequest request = builder.POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
      String problem;
      try {
        HttpResponse<String> response = sendOnce(http, request);
        problem =
            response.statusCode() == 202 && response.body().isEmpty()
                ? null
                : problem(response.statusCode(), response.body());
      } catch (java.io.IOException e) {
        problem = "no answer: " + e;
      }
      if (problem != null) {
        failures.add(
            "seed "
                + seed
                + " #"
                + i
                + " "
                + abbreviate(new String(body, StandardCharsets.UTF_8))
                + " -> "
                + problem);
      }
    }
    return failures;
  }

  /**
   * Sends a request, again once if a kept-alive connection was found closed before any byte of the
   * answer came back: HTTP/1.1 lets either side close an idle connection at any time, and a client
   * that picked it from its pool in that moment retries (RFC 9112 §9.3.1). Any other failure is the
   * server's.
   */
  private static HttpResponse<String> sendOnce(HttpClient http, HttpRequest request)
      throws java.io.IOException, InterruptedException {
    try {
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (java.io.IOException e) {
      if (e.getMessage() == null || !e.getMessage().contains("received no bytes")) {
        throw e;
      }
      return http.send(request, HttpResponse.BodyHandlers.ofString());
    }
  }

  private static HttpRequest.Builder post(String endpoint, String session, String authorization) {
    HttpRequest.Builder builder =
        HttpRequest.newBuilder(URI.create(endpoint))
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream");
    if (session != null) {
      builder.header("Mcp-Session-Id", session);
    }
    if (authorization != null && !authorization.isBlank()) {
      builder.header("Authorization", authorization);
    }
    return builder;
  }

  /**
   * The headers a 2026-07-28 client sends with {@code body}, as its (possibly mutated) envelope
   * reads, so that most of those messages reach the tools rather than the header check.
   */
  private static void mirroredHeaders(byte[] body, HttpRequest.Builder builder) {
    JsonNode json;
    try {
      json = Json.parse(body);
    } catch (RuntimeException e) {
      return;
    }
    JsonNode version = json.path("params").path("_meta").path(McpProtocol.META_VERSION);
    if (version.isTextual() && json.path("method").isTextual()) {
      String method = json.path("method").textValue();
      builder.header("MCP-Protocol-Version", McpProtocol.headerValue(version.textValue()));
      builder.header("Mcp-Method", McpProtocol.headerValue(method));
      JsonNode name = json.path("params").path(method.equals("resources/read") ? "uri" : "name");
      if (name.isTextual() && !name.textValue().isEmpty()) {
        builder.header("Mcp-Name", McpProtocol.headerValue(name.textValue()));
      }
    }
  }

  /**
   * A JSON-RPC message around a fuzzed request, half of them in MCP 2026-07-28's envelope, itself
   * sometimes mutated as JSON or bytes.
   */
  private static byte[] message(RequestFuzzer fuzzer, int n) {
    RequestFuzzer.Request request = fuzzer.next();
    ObjectNode message = Json.object().put("jsonrpc", "2.0").put("id", n);
    String method = METHODS[fuzzer.nextInt(METHODS.length)];
    message.put("method", method);
    ObjectNode params = message.putObject("params");
    if (fuzzer.nextInt(2) == 0) {
      McpProtocol.envelopeOf(params, "fuzzer");
    }
    JsonNode arguments = request.json() != null ? request.json() : fuzzer.seed("store");
    switch (method) {
      case "tools/call" -> {
        params.put("name", McpTools.toolName(request.operation()));
        params.set("arguments", arguments);
      }
      case "resources/read" ->
          params.put("uri", "sgm://record/" + request.text().replace('"', '%') + "/x");
      case "resources/list" -> params.put("cursor", request.text());
      default -> params.set("x", arguments);
    }
    JsonNode mutated = message;
    int kind = fuzzer.nextInt(10);
    if (kind < 3) {
      mutated = fuzzer.mutate(message);
    }
    byte[] bytes;
    try {
      bytes = Json.writeBytes(mutated);
    } catch (IllegalStateException e) {
      bytes = fuzzer.mutateBytes(Json.writeBytes(fuzzer.seed("store"))); // nested too deep to write
    }
    return kind >= 8 ? fuzzer.mutateBytes(bytes) : bytes;
  }

  /** What is wrong with an answer, or null. */
  private static String problem(int status, String body) {
    if (status >= 500) {
      return status + " " + abbreviate(body);
    }
    String leak = RequestFuzzer.leak(body);
    if (leak != null) {
      return "leaked '" + leak + "' in " + abbreviate(body);
    }
    JsonNode json;
    try {
      json = Json.parse(body);
    } catch (RuntimeException e) {
      return "not JSON: " + abbreviate(body);
    }
    for (JsonNode one : json.isArray() ? json : Json.array().add(json)) {
      if (one.path("error").path("code").asInt() == -32603) {
        return "an internal error: " + abbreviate(body);
      }
      if (one.path("result").path("isError").asBoolean()
          && "internal"
              .equals(
                  one.path("result")
                      .path("structuredContent")
                      .path("error")
                      .path("code")
                      .asText())) {
        return "an internal tool error: " + abbreviate(body);
      }
    }
    return null;
  }

  private static String abbreviate(String text) {
    return text.length() > 200 ? text.substring(0, 200) + "..." : text;
  }
}
