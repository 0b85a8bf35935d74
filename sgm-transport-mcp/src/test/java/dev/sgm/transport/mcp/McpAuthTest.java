package dev.sgm.transport.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Bearer tokens over MCP Streamable HTTP: 401 with a challenge, tools within the grants. */
class McpAuthTest {
  @Test
  void sessionsNeedATokenAndToolsKeepToItsGrants() throws Exception {
    try (McpServers.Running server = McpServers.start("auth.enabled", "true")) {
      String token =
          server
              .runtime()
              .tokens()
              .create(
                  "carol",
                  List.of(Grants.Grant.parse("project=alpha:read_write")),
                  Set.of("cursor"),
                  Sensitivity.SECRET,
                  null)
              .token();
      HttpResponse<String> refused =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(server.endpoint()))
                      .header("Content-Type", "application/json")
                      .POST(
                          HttpRequest.BodyPublishers.ofString(
                              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(401, refused.statusCode());
      assertTrue(refused.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
      assertEquals(
          ErrorCode.UNAUTHENTICATED,
          assertThrows(SgmException.class, () -> new McpClient(server.endpoint())).code());
      McpClient carol = new McpClient(server.endpoint() + "?project=alpha&agent=cursor", token);
      JsonNode stored =
          carol.rpc(
              "tools/call",
              Json.parse("{\"name\":\"sgm_store\",\"arguments\":{\"content\":\"hello\"}}"));
      assertFalse(stored.path("isError").asBoolean(), stored.toString());
      assertEquals(
          "carol",
          stored
              .path("structuredContent")
              .path("record")
              .path("provenance")
              .path("principal")
              .asText());
      JsonNode beta =
          carol.rpc(
              "tools/call",
              Json.parse(
                  "{\"name\":\"sgm_retrieve\",\"arguments\":{\"scope\":{\"project\":\"beta\"}}}"));
      assertTrue(beta.path("isError").asBoolean(), beta.toString());
      assertEquals("forbidden", beta.path("structuredContent").path("error").path("code").asText());
      assertEquals("carol", carol.call("whoami", Json.object()).path("principal").asText());
    }
  }

  @Test
  void aSessionIdleTooLongEnds() throws Exception {
    try (McpServers.Running server = McpServers.start("mcp.session-idle-ms", "300")) {
      McpClient client = McpClient.legacy(server.endpoint(), null);
      McpClient stateless = new McpClient(server.endpoint());
      assertTrue(client.rpc("tools/list", Json.object()).path("tools").size() > 0);
      Thread.sleep(700);
      SgmException ended =
          assertThrows(SgmException.class, () -> client.rpc("tools/list", Json.object()));
      assertTrue(ended.getMessage().contains("unknown session"), ended.getMessage());
      // A 2026-07-28 client has no session to lose.
      assertTrue(stateless.rpc("tools/list", Json.object()).path("tools").size() > 0);
    }
  }

  private static HttpResponse<String> send(
      String url, String method, String session, String token, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .timeout(java.time.Duration.ofSeconds(20))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      request.header("Mcp-Session-Id", session);
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /**
   * A session belongs to the principal that began it: its GET stream and its DELETE need that
   * principal's valid token, and anyone else is told only that there is no such session.
   */
  @Test
  void aSessionsStreamAndItsEndBelongToItsPrincipal() throws Exception {
    try (McpServers.Running server = McpServers.start("auth.enabled", "true")) {
      String carol = token(server, "carol");
      String dave = token(server, "dave");
      HttpResponse<String> init =
          send(
              server.endpoint(),
              "POST",
              null,
              carol,
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
      String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      for (String method : List.of("GET", "DELETE")) {
        assertEquals(
            401, send(server.endpoint(), method, session, null, null).statusCode(), method);
        assertEquals(
            401,
            send(server.endpoint(), method, session, "not-a-token", null).statusCode(),
            method);
        assertEquals(
            404, send(server.endpoint(), method, session, dave, null).statusCode(), method);
      }
      assertEquals(
          404,
          send(
                  server.endpoint(),
                  "POST",
                  session,
                  dave,
                  "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}")
              .statusCode(),
          "another principal's request on the session");
      // None of that ended carol's session.
      assertEquals(
          200,
          send(
                  server.endpoint(),
                  "POST",
                  session,
                  carol,
                  "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}")
              .statusCode());
      assertEquals(200, send(server.endpoint(), "DELETE", session, carol, null).statusCode());
    }
  }

  /** A stream whose token is revoked ends, with the error, within the token cache's time. */
  @Test
  void aStreamEndsWithTheErrorOnceItsTokenIsRevoked() throws Exception {
    try (McpServers.Running server = McpServers.start("auth.enabled", "true")) {
      var created =
          server
              .runtime()
              .tokens()
              .create(
                  "erin",
                  List.of(Grants.Grant.parse("project=alpha:read_write")),
                  Set.of("*"),
                  Sensitivity.SECRET,
                  null);
      ObjectNode params = Json.object();
      params
          .putObject("notifications")
          .putArray("resourceSubscriptions")
          .add("sgm://scope/project%3Dalpha");
      ObjectNode listen =
          Json.object()
              .put("jsonrpc", "2.0")
              .put("id", "listen:0")
              .put("method", "subscriptions/listen");
      McpProtocol.envelopeOf(params, "auth-test");
      listen.set("params", params);
      HttpRequest request =
          HttpRequest.newBuilder(URI.create(server.endpoint() + "?project=alpha"))
              .header("Content-Type", "application/json")
              .header("Accept", "application/json, text/event-stream")
              .header("MCP-Protocol-Version", "2026-07-28")
              .header("Mcp-Method", "subscriptions/listen")
              .header("Authorization", "Bearer " + created.token())
              .POST(HttpRequest.BodyPublishers.ofString(Json.write(listen)))
              .build();
      HttpResponse<java.io.InputStream> stream =
          HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofInputStream());
      assertEquals(200, stream.statusCode());
      try (java.io.BufferedReader events =
          new java.io.BufferedReader(
              new java.io.InputStreamReader(
                  stream.body(), java.nio.charset.StandardCharsets.UTF_8))) {
        assertEquals(
            "notifications/subscriptions/acknowledged",
            McpRevisionsTest.nextEvent(events).path("method").asText());
        server.runtime().tokens().revoke(created.id());
        JsonNode ended = McpRevisionsTest.nextEvent(events);
        assertEquals("listen:0", ended.path("id").asText(), ended.toString());
        assertEquals(McpProtocol.UNAUTHORIZED, ended.path("error").path("code").asInt());
        assertTrue(
            ended.path("error").path("message").asText().contains("not valid"), ended.toString());
        String rest = events.readLine();
        while (rest != null && rest.isEmpty()) {
          rest = events.readLine();
        }
        assertEquals(null, rest, "the stream is closed");
      }
    }
  }

  private static String token(McpServers.Running server, String principal) {
    return server
        .runtime()
        .tokens()
        .create(
            principal,
            List.of(Grants.Grant.parse("project=alpha:read_write")),
            Set.of("*"),
            Sensitivity.SECRET,
            null)
        .token();
  }
}
