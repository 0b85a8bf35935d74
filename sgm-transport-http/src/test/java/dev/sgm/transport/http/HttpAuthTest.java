package dev.sgm.transport.http;

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
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Bearer tokens over real HTTP: 401 with a challenge, grants enforced, the principal recorded. */
class HttpAuthTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> post(String url, String token, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.replace('\'', '"')));
    if (token != null) {
      request.header("Authorization", token);
    }
    return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void requestsNeedATokenAndKeepToItsGrants() throws Exception {
    try (HttpServers.Running server = HttpServers.start("auth.enabled", "true")) {
      String token =
          server
              .runtime()
              .tokens()
              .create(
                  "alice",
                  List.of(Grants.Grant.parse("project=alpha:read_write")),
                  Set.of("claude"),
                  Sensitivity.SECRET,
                  Duration.ofDays(1))
              .token();
      String store = server.url() + "/v1/store";
      String record =
          "{'record':{'id':'n1','type':'note','scope':{'project':'%s'},'content':'hi',"
              + "'provenance':{'agent':'claude'}}}";
      for (String bad : new String[] {null, "Bearer nope", "Basic abc", "Bearer " + token + "x"}) {
        HttpResponse<String> refused = post(store, bad, record.formatted("alpha"));
        assertEquals(401, refused.statusCode(), String.valueOf(bad));
        assertTrue(
            refused.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
        assertEquals(
            "unauthenticated", Json.parse(refused.body()).path("error").path("code").asText());
      }
      HttpResponse<String> stored = post(store, "Bearer " + token, record.formatted("alpha"));
      assertEquals(200, stored.statusCode(), stored.body());
      assertEquals(
          "alice",
          Json.parse(stored.body()).path("record").path("provenance").path("principal").asText());
      HttpResponse<String> beta = post(store, "Bearer " + token, record.formatted("beta"));
      assertEquals(403, beta.statusCode(), beta.body());
      assertEquals("forbidden", Json.parse(beta.body()).path("error").path("code").asText());
      HttpResponse<String> health =
          HTTP.send(
              HttpRequest.newBuilder(URI.create(server.url() + "/healthz")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode());

      SgmHttpClient client = new SgmHttpClient(server.url(), Duration.ofSeconds(10), token);
      JsonNode whoami = client.call("whoami", Json.object());
      assertEquals("alice", whoami.path("principal").asText());
      assertEquals(List.of("claude"), List.of(whoami.path("agents").get(0).asText()));
      assertFalse(whoami.toString().contains(token.substring(21)));
      SgmException anonymous =
          assertThrows(SgmException.class, () -> server.client().call("whoami", Json.object()));
      assertEquals(ErrorCode.UNAUTHENTICATED, anonymous.code());
    }
  }

  @Test
  void withoutAuthenticationTheLoopbackServerIsTheOwnersAsBefore() throws Exception {
    JsonNode whoami = HttpServers.shared().client().call("whoami", Json.object());
    assertTrue(whoami.path("owner").asBoolean(), whoami.toString());
  }

  @Test
  void profileOperationsKeepToTheGrantsToo() throws Exception {
    try (HttpServers.Running server = HttpServers.start("auth.enabled", "true")) {
      dev.sgm.api.Caller owner = dev.sgm.api.Caller.embedded();
      for (String scope : new String[] {"{'project':'p'}", "{'project':'p','session':'s'}"}) {
        server
            .runtime()
            .service()
            .invoke(
                owner,
                "store",
                Json.parse(
                    ("{'record':{'id':'rule-%d','type':'rule','scope':%s,'provenance':{'agent':'a'},"
                            + "'data':{'statement':'hidden or not','severity':'must','active':true}}}")
                        .formatted(scope.length(), scope)
                        .replace('\'', '"')));
      }
      String token =
          server
              .runtime()
              .tokens()
              .create(
                  "session-only",
                  List.of(Grants.Grant.parse("project=p;session=s:read")),
                  Set.of(),
                  Sensitivity.SECRET,
                  null)
              .token();
      SgmHttpClient client = new SgmHttpClient(server.url(), Duration.ofSeconds(10), token);
      JsonNode rules =
          client.call(
              "rules.active", Json.parse("{\"scope\":{\"project\":\"p\",\"session\":\"s\"}}"));
      assertEquals(1, rules.path("rules").size(), rules.toString());
      assertFalse(rules.toString().contains("\"project\":\"p\"}"), rules.toString());
      SgmException history =
          assertThrows(
              SgmException.class,
              () ->
                  client.call(
                      "history.versions",
                      Json.parse("{\"scope\":{\"project\":\"p\"},\"id\":\"rule-15\"}")));
      assertEquals(ErrorCode.FORBIDDEN, history.code());
    }
  }

  @Test
  void anAddressThatKeepsPresentingBadTokensGets429WithRetryAfter() throws Exception {
    try (HttpServers.Running server =
        HttpServers.start("auth.enabled", "true", "auth.failure-limit", "3")) {
      String whoami = server.url() + "/v1/whoami";
      for (int i = 0; i < 3; i++) {
        assertEquals(401, post(whoami, "Bearer sgm_guess" + i, "{}").statusCode());
      }
      HttpResponse<String> throttled = post(whoami, "Bearer sgm_guess", "{}");
      assertEquals(429, throttled.statusCode(), throttled.body());
      long retryAfter = Long.parseLong(throttled.headers().firstValue("Retry-After").orElseThrow());
      assertTrue(retryAfter >= 1 && retryAfter <= 60, "Retry-After " + retryAfter);
      JsonNode error = Json.parse(throttled.body()).path("error");
      assertEquals("unavailable", error.path("code").asText());
      assertEquals("authorization", error.path("details").get(0).path("field").asText());
      assertTrue(throttled.headers().firstValue("WWW-Authenticate").isEmpty());
    }
  }
}
