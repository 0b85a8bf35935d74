package dev.sgm.transport.mcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
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
      McpClient client = new McpClient(server.endpoint());
      assertTrue(client.rpc("tools/list", Json.object()).path("tools").size() > 0);
      Thread.sleep(700);
      SgmException ended =
          assertThrows(SgmException.class, () -> client.rpc("tools/list", Json.object()));
      assertTrue(ended.getMessage().contains("unknown session"), ended.getMessage());
    }
  }
}
