package dev.sgm.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The served OpenAPI document against the server itself: every path it lists answers (no 404),
 * every operation the engine offers is listed, and every schema reference resolves.
 */
class OpenApiTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static JsonNode document() throws Exception {
    return Json.parse(get("/openapi.json").body());
  }

  private static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(HttpServers.shared().url() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void itIsOpenApi31AndListsEveryOperation() throws Exception {
    JsonNode doc = document();
    assertEquals("3.1.0", doc.path("openapi").asText());
    assertFalse(doc.path("info").path("title").asText().isEmpty());
    for (String operation : HttpServers.shared().runtime().service().operations()) {
      assertTrue(doc.path("paths").has("/v1/" + operation), "documented: " + operation);
      assertTrue(doc.path("paths").path("/v1/" + operation).has("post"));
    }
    for (SgmHandler.Route route : SgmHandler.FIXED_ROUTES) {
      assertTrue(
          doc.path("paths").path(route.path()).has(route.method().toLowerCase()), route.toString());
    }
  }

  @Test
  void everyListedPathIsServed() throws Exception {
    String hash =
        HttpServers.shared()
            .client()
            .call("put_content", Json.parse("{\"content\": \"openapi\"}"))
            .path("reference")
            .path("hash")
            .asText();
    for (Map.Entry<String, JsonNode> path : document().path("paths").properties()) {
      for (Map.Entry<String, JsonNode> method : path.getValue().properties()) {
        String url = path.getKey().replace("{hash}", hash);
        HttpRequest.Builder request =
            HttpRequest.newBuilder(URI.create(HttpServers.shared().url() + url));
        if (method.getKey().equals("post")) {
          request
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString("{}"));
        } else {
          request.GET();
        }
        HttpResponse<String> response =
            HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
        assertNotEquals(
            404, response.statusCode(), method.getKey() + " " + url + ": " + response.body());
        assertNotEquals(405, response.statusCode(), method.getKey() + " " + url);
        assertTrue(
            response.statusCode() < 500, method.getKey() + " " + url + ": " + response.body());
      }
    }
  }

  @Test
  void everyReferenceResolves() throws Exception {
    JsonNode doc = document();
    List<String> refs = new ArrayList<>();
    collectRefs(doc, refs);
    assertTrue(refs.size() > 20, "references: " + refs.size());
    for (String ref : refs) {
      assertTrue(ref.startsWith("#/"), ref);
      JsonNode target = doc.at(ref.substring(1));
      assertFalse(target.isMissingNode(), "unresolved " + ref);
    }
  }

  private static void collectRefs(JsonNode node, List<String> refs) {
    if (node.isObject()) {
      if (node.has("$ref")) {
        refs.add(node.get("$ref").asText());
      }
      node.forEach(child -> collectRefs(child, refs));
    } else if (node.isArray()) {
      node.forEach(child -> collectRefs(child, refs));
    }
  }
}
