package dev.sgm.transport.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.DiscoverRequest;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Resource subscriptions over MCP stdio, as {@code sgm mcp} serves them: a store by another agent
 * reaches a subscribed session as {@code notifications/resources/updated}, and a new record in the
 * listed default scope as {@code notifications/resources/list_changed}; through a backend with a
 * live watch (the engine in this process) and through one without (followed through {@code
 * changes}, as for a remote server).
 */
class McpStdioSubscriptionTest {
  @ParameterizedTest(name = "live watch: {0}")
  @ValueSource(booleans = {true, false})
  void storesByOthersReachASubscribedStdioSession(boolean live) throws Exception {
    try (SgmRuntime runtime =
        SgmRuntime.open(
            ConfigLoader.load(
                Map.of(ConfigLoader.STORAGE_MEMORY, "true", "transports.enabled", "mcp"),
                Map.of()))) {
      Caller owner = Caller.anonymous("mcp");
      SgmClient backend =
          live
              ? new SgmClient() {
                @Override
                public JsonNode call(String operation, JsonNode request) {
                  return runtime.service().invoke(owner, operation, request);
                }

                @Override
                public Optional<ChangeStream> watch(ChangesRequest request) {
                  return Optional.of(runtime.service().watch(owner, request));
                }
              }
              : (operation, request) -> runtime.service().invoke(owner, operation, request);
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
                      new McpStdioProvider()
                          .serve(
                              backend,
                              runtime
                                  .service()
                                  .discover(Caller.embedded(), DiscoverRequest.any())
                                  .operations(),
                              Json.object().put("project", "watched"),
                              "agent-b",
                              "test",
                              serverIn,
                              out);
                    } catch (java.io.IOException e) {
                      throw new java.io.UncheckedIOException(e);
                    }
                  });
      BlockingQueue<JsonNode> received = new ArrayBlockingQueue<>(1000);
      Thread.ofVirtual()
          .start(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(fromServer, StandardCharsets.UTF_8))) {
                  for (String line = in.readLine(); line != null; line = in.readLine()) {
                    received.add(Json.parse(line));
                  }
                } catch (java.io.IOException e) {
                  // The server's output closed.
                }
              });
      PrintStream client = new PrintStream(toServer, true, StandardCharsets.UTF_8);
      try {
        client.println("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
        JsonNode initialized = answer(received, 1);
        assertTrue(
            initialized
                .path("result")
                .path("capabilities")
                .path("resources")
                .path("subscribe")
                .asBoolean(),
            initialized.toString());
        assertTrue(
            initialized
                .path("result")
                .path("capabilities")
                .path("resources")
                .path("listChanged")
                .asBoolean(),
            initialized.toString());
        store(runtime, owner, "existing", "first words");
        client.println(
            "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/subscribe\",\"params\":{\"uri\":"
                + "\"sgm://record/project%3Dwatched/existing\"}}");
        assertTrue(answer(received, 2).has("result"));
        client.println(
            "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\",\"params\":{}}");
        JsonNode listed = answer(received, 3).path("result").path("resources");
        assertTrue(
            listed.findValuesAsText("uri").contains("sgm://record/project%3Dwatched/existing"),
            listed.toString());

        store(runtime, owner, "existing", "changed words");
        JsonNode updated = notification(received, "notifications/resources/updated");
        assertEquals(
            "sgm://record/project%3Dwatched/existing", updated.path("params").path("uri").asText());
        store(runtime, owner, "brand-new", "a record the list did not have");
        assertNotNull(notification(received, "notifications/resources/list_changed"));

      } finally {
        // Ends the session even when an assertion failed, so its threads do not outlive the test.
        toServer.close();
      }
      serving.join(10_000);
      assertTrue(!serving.isAlive(), "the session ends when its input does");
    }
  }

  private static void store(SgmRuntime runtime, Caller caller, String id, String content) {
    runtime
        .service()
        .invoke(
            caller,
            "store",
            Json.parse(
                "{\"record\":{\"id\":\""
                    + id
                    + "\",\"type\":\"note\",\"scope\":{\"project\":\"watched\"},\"content\":\""
                    + content
                    + "\",\"provenance\":{\"agent\":\"agent-a\"}}}"));
  }

  private static JsonNode answer(BlockingQueue<JsonNode> received, int id) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      JsonNode message = received.poll(100, TimeUnit.MILLISECONDS);
      if (message != null && message.path("id").asInt(-1) == id) {
        return message;
      }
    }
    throw new AssertionError("no answer to request " + id);
  }

  private static JsonNode notification(BlockingQueue<JsonNode> received, String method)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      JsonNode message = received.poll(100, TimeUnit.MILLISECONDS);
      if (message != null && method.equals(message.path("method").asText())) {
        return message;
      }
    }
    throw new AssertionError("no " + method + " within 10 s");
  }
}
