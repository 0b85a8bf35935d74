package dev.sgm.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The HTTP binding's own rules: routes, statuses, and every kind of malformed input. */
class HttpProtocolTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private record Answer(int status, String contentType, String body) {
    JsonNode json() {
      return Json.parse(body);
    }

    String code() {
      return json().path("error").path("code").asText();
    }
  }

  private static Answer send(String method, String path, String contentType, byte[] body)
      throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(HttpServers.shared().url() + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofByteArray(body));
    if (contentType != null) {
      request.header("Content-Type", contentType);
    }
    if (body != null && body.length > 1024 * 1024) {
      // The server refuses an oversized body from its Content-Length without reading it, then
      // closes; a client still sending can have that answer reset away. Asking first, as clients
      // of large uploads do, makes the refusal arrive before any of the body is sent.
      request.expectContinue(true);
    }
    HttpResponse<String> response =
        HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(
        response.statusCode(),
        response.headers().firstValue("Content-Type").orElse(""),
        response.body());
  }

  private static Answer post(String path, String json) throws Exception {
    return send("POST", path, "application/json", json.getBytes(StandardCharsets.UTF_8));
  }

  private static void assertError(Answer answer, int status, String code) {
    assertEquals(status, answer.status(), answer.body());
    assertTrue(answer.contentType().startsWith("application/json"), answer.contentType());
    assertEquals(code, answer.code(), answer.body());
    assertFalse(answer.body().contains("at dev.sgm"), "no stack trace");
    assertFalse(answer.body().toUpperCase().contains("SELECT "), "no SQL");
  }

  @Test
  void discoveryHealthAndTheWellKnownAddress() throws Exception {
    Answer discovery = send("GET", "/v1/discovery", null, null);
    assertEquals(200, discovery.status());
    assertTrue(
        discovery.json().path("capabilities").toString().contains("\"http\""), discovery.body());
    assertEquals(
        withoutIndexState(discovery.json()),
        withoutIndexState(send("GET", "/.well-known/sgm", null, null).json()));
    Answer health = send("GET", "/healthz", null, null);
    assertEquals(200, health.status());
    assertEquals("ok", health.json().path("status").asText());
    assertEquals("h2", health.json().path("storage").path("name").asText(), health.body());
    assertEquals("ok", health.json().path("storage").path("status").asText(), health.body());
    assertEquals(200, post("/v1/discover", "{}").status());
    assertEquals(200, send("POST", "/v1/discover", null, null).status(), "an empty body is {}");
  }

  /**
   * Discovery without the search index's progress: other tests' writes move it between two calls,
   * so two answers are the same document apart from it.
   */
  private static JsonNode withoutIndexState(JsonNode discovery) {
    ObjectNode copy = discovery.deepCopy();
    ((ObjectNode) copy.path("retrieval")).remove("index");
    return copy;
  }

  @Test
  void malformedInputIsAClear4xx() throws Exception {
    assertError(post("/v1/store", "{\"record\": "), 400, "invalid_request");
    assertError(post("/v1/store", "[1, 2]"), 400, "invalid_request");
    assertError(post("/v1/store", "{\"a\":1,\"a\":2}"), 400, "invalid_request");
    assertError(post("/v1/retrieve", "[".repeat(300) + "]".repeat(300)), 400, "invalid_request");
    byte[] badUtf8 = {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}'};
    assertError(send("POST", "/v1/store", "application/json", badUtf8), 400, "invalid_request");
    assertError(
        send("POST", "/v1/store", "text/plain", "{}".getBytes(StandardCharsets.UTF_8)),
        415,
        "invalid_request");
    assertError(
        send(
            "POST",
            "/v1/store",
            "application/json; charset=latin1",
            "{}".getBytes(StandardCharsets.UTF_8)),
        415,
        "invalid_request");
    byte[] huge = new byte[5 * 1024 * 1024];
    java.util.Arrays.fill(huge, (byte) ' ');
    huge[0] = '{';
    huge[huge.length - 1] = '}';
    assertError(send("POST", "/v1/store", "application/json", huge), 413, "too_large");
  }

  /**
   * A client that sends a whole oversized body without asking first (no {@code Expect:
   * 100-continue}) still reads the 413: the server reads the body it refuses rather than closing
   * under it, which would reset the connection before the answer arrives.
   */
  @Test
  void anOversizedBodySentWithoutAskingStillGetsItsAnswer() throws Exception {
    byte[] body = new byte[6 * 1024 * 1024];
    java.util.Arrays.fill(body, (byte) ' ');
    for (boolean chunked : new boolean[] {false, true}) {
      for (int attempt = 0; attempt < 3; attempt++) {
        URI url = URI.create(HttpServers.shared().url());
        try (java.net.Socket socket = new java.net.Socket(url.getHost(), url.getPort())) {
          socket.setSoTimeout(30_000);
          java.io.OutputStream out = socket.getOutputStream();
          String head =
              "POST /v1/store HTTP/1.1\r\nHost: "
                  + url.getHost()
                  + "\r\nContent-Type: application/json\r\n"
                  + (chunked
                      ? "Transfer-Encoding: chunked\r\n"
                      : "Content-Length: " + body.length + "\r\n")
                  + "\r\n";
          out.write(head.getBytes(StandardCharsets.US_ASCII));
          if (chunked) {
            int size = 64 * 1024;
            for (int offset = 0; offset < body.length; offset += size) {
              out.write((Integer.toHexString(size) + "\r\n").getBytes(StandardCharsets.US_ASCII));
              out.write(body, offset, size);
              out.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write("0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
          } else {
            out.write(body);
          }
          out.flush();
          String answer =
              new String(socket.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
          assertEquals("HTTP/1.1 413", answer, (chunked ? "chunked" : "sized") + " body");
        }
      }
    }
  }

  @Test
  void statusesFollowTheErrorTable() throws Exception {
    assertError(
        post("/v1/store", "{\"record\": {\"id\": \"x\", \"type\": \"note\"}}"),
        400,
        "invalid_record");
    assertError(
        post("/v1/read", "{\"scope\": {\"project\": \"http-none\"}, \"id\": \"nothing\"}"),
        404,
        "not_found");
    assertError(post("/v1/no_such.op", "{}"), 501, "unsupported_capability");
    assertError(send("GET", "/v1/store", null, null), 405, "invalid_request");
    assertError(send("GET", "/nowhere", null, null), 404, "not_found");
    assertError(
        post("/v1/discover", "{\"accept_versions\": [\"9.0.0\"]}"), 400, "unsupported_version");
    HttpRequest wrongVersion =
        HttpRequest.newBuilder(URI.create(HttpServers.shared().url() + "/v1/discover"))
            .header("SGM-Protocol-Version", "2.0.0")
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    HttpResponse<String> response = HTTP.send(wrongVersion, HttpResponse.BodyHandlers.ofString());
    assertEquals(400, response.statusCode());
    assertEquals(
        "unsupported_version", Json.parse(response.body()).path("error").path("code").asText());
    assertEquals("0.1.0", response.headers().firstValue("SGM-Protocol-Version").orElse(""));
  }

  @Test
  void storedContentIsServedByHash() throws Exception {
    JsonNode reference =
        post("/v1/put_content", "{\"content\": \"body text ✓\"}").json().path("reference");
    Answer content = send("GET", "/v1/content/" + reference.path("hash").asText(), null, null);
    assertEquals(200, content.status());
    assertEquals("body text ✓", content.body());
    assertTrue(content.contentType().startsWith("text/plain"));
    assertError(send("GET", "/v1/content/" + "0".repeat(64), null, null), 404, "not_found");
    assertError(send("GET", "/v1/content/xyz", null, null), 400, "invalid_request");
  }

  @Test
  void theJavaClientRaisesTheServersErrors() throws Exception {
    SgmException e =
        assertThrows(
            SgmException.class,
            () -> HttpServers.shared().client().call("read", Json.parse("{\"id\": \"x\"}")));
    assertEquals(ErrorCode.INVALID_REQUEST, e.code());
    assertEquals("scope", e.details().get(0).field());
    SgmException down =
        assertThrows(
            SgmException.class,
            () -> new SgmHttpClient("http://127.0.0.1:1").call("discover", Json.object()));
    assertEquals(ErrorCode.UNAVAILABLE, down.code());
  }

  @Test
  void recordsStoredOverHttpHaveOriginHttp() throws Exception {
    JsonNode stored =
        post(
                "/v1/store",
                "{\"record\": {\"id\": \"o\", \"type\": \"note\", \"scope\": {\"project\": \"http-origin\"},"
                    + " \"provenance\": {\"agent\": \"a\"}, \"metadata\": {\"n\": 1.0, \"big\": 12345678901234567890}}}")
            .json();
    assertEquals("http", stored.path("record").path("provenance").path("origin").asText());
    Answer read = post("/v1/read", "{\"scope\": {\"project\": \"http-origin\"}, \"id\": \"o\"}");
    assertTrue(
        read.body().contains("\"metadata\":{\"n\":1.0,\"big\":12345678901234567890}"), read.body());
  }

  @Test
  void aNonLoopbackHostIsRefusedWithoutAuthentication() {
    SgmException e =
        assertThrows(SgmException.class, () -> HttpServers.start("http.host", "0.0.0.0"));
    assertEquals(ErrorCode.FORBIDDEN, e.code());
    assertTrue(e.getMessage().contains("needs authentication"), e.getMessage());
  }
}
