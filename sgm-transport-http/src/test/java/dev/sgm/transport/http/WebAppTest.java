package dev.sgm.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Web apps found by {@code ServiceLoader} are served beside the API, switched by {@code
 * webapps.enabled} / {@code webapps.disabled}, and never shadow the API.
 */
class WebAppTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aWebAppPresentIsServedBeforeAuthenticationWithItsHeaders() throws Exception {
    try (HttpServers.Running server = HttpServers.start("auth.enabled", "true")) {
      HttpResponse<String> page = get(server.url() + "/greeting/index.html");
      assertEquals(200, page.statusCode(), page.body());
      assertEquals("hello from /greeting/index.html auth=true", page.body());
      assertEquals(
          "default-src 'self'", page.headers().firstValue("Content-Security-Policy").orElse(""));
      assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
      // The API keeps asking for a token, and its paths are never the web app's.
      assertEquals(401, get(server.url() + "/v1/discovery").statusCode());
      assertEquals(401, get(server.url() + "/.well-known/sgm").statusCode());
      assertEquals(401, get(server.url() + "/").statusCode());
    }
  }

  @Test
  void headAnswersAsGetWithoutTheBody() throws Exception {
    try (HttpServers.Running server = HttpServers.start()) {
      for (String path : List.of("/greeting/index.html", "/openapi.json")) {
        HttpResponse<String> got = get(server.url() + path);
        HttpResponse<String> head =
            HTTP.send(
                HttpRequest.newBuilder(URI.create(server.url() + path))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(got.statusCode(), head.statusCode(), path);
        assertEquals("", head.body(), path);
        assertEquals(
            got.headers().firstValue("Content-Type"),
            head.headers().firstValue("Content-Type"),
            path);
        assertEquals(
            String.valueOf(got.body().getBytes(java.nio.charset.StandardCharsets.UTF_8).length),
            head.headers().firstValue("Content-Length").orElse(""),
            path);
      }
    }
  }

  @Test
  void theApiPathsStayTheApis() throws Exception {
    try (HttpServers.Running server = HttpServers.start()) {
      HttpResponse<String> discovery = get(server.url() + "/v1/discovery");
      assertEquals(200, discovery.statusCode());
      assertEquals("0.1.0", Json.parse(discovery.body()).path("protocol_version").asText());
      HttpResponse<String> unknown = get(server.url() + "/v1/nothing/here");
      assertEquals(404, unknown.statusCode());
      assertEquals("not_found", Json.parse(unknown.body()).path("error").path("code").asText());
      HttpResponse<String> root = get(server.url() + "/");
      assertEquals(404, root.statusCode());
      assertEquals("not_found", Json.parse(root.body()).path("error").path("code").asText());
    }
  }

  @Test
  void aDisabledWebAppIsNotServedAndTheApiAnswersAsWithoutIt() throws Exception {
    for (String[] config :
        new String[][] {{"webapps.disabled", "greeting"}, {"webapps.enabled", ""}}) {
      try (HttpServers.Running server = HttpServers.start(config)) {
        HttpResponse<String> page = get(server.url() + "/greeting/index.html");
        boolean disabled = config[0].equals("webapps.disabled");
        assertEquals(disabled ? 404 : 200, page.statusCode(), page.body());
        if (disabled) {
          assertEquals("not_found", Json.parse(page.body()).path("error").path("code").asText());
        }
      }
    }
  }

  @Test
  void anUnknownWebAppNameStopsStartUpNamingTheOnesPresent() {
    SgmException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            SgmException.class, () -> HttpServers.start("webapps.enabled", "nope").close());
    assertTrue(e.getMessage().contains("unknown webapp 'nope' in webapps.enabled"), e.getMessage());
    assertTrue(e.getMessage().contains("[greeting]"), e.getMessage());
  }
}
