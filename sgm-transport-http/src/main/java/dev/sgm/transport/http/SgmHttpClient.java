package dev.sgm.transport.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A client of the SGM HTTP API on {@code java.net.http}: {@code call("retrieve", query)} posts to
 * {@code /v1/retrieve} and returns the response, or throws the server's error as {@link
 * SgmException}. One instance reuses its connections; it is safe to share between threads.
 */
public final class SgmHttpClient implements SgmClient, AutoCloseable {
  private final HttpClient http;
  private final URI base;
  private final Duration timeout;
  private final String token;

  /** A client of the server at {@code baseUrl}, e.g. {@code http://127.0.0.1:7410}. */
  public SgmHttpClient(String baseUrl) {
    this(baseUrl, Duration.ofSeconds(30));
  }

  public SgmHttpClient(String baseUrl, Duration timeout) {
    this(baseUrl, timeout, null);
  }

  /** A client that sends {@code token} (when not null) as {@code Authorization: Bearer}. */
  public SgmHttpClient(String baseUrl, Duration timeout, String token) {
    this.token = token;
    this.base = URI.create(baseUrl.endsWith("/") ? baseUrl : baseUrl + "/");
    this.timeout = timeout;
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10));
    if (base.getScheme().equals("https")) {
      dev.sgm.api.spi.Pem.clientCa()
          .ifPresent(ca -> builder.sslContext(dev.sgm.api.spi.Pem.trusting(ca)));
    }
    this.http = builder.build();
  }

  @Override
  public JsonNode call(String operation, JsonNode request) {
    HttpRequest post =
        authorized(HttpRequest.newBuilder(base.resolve("v1/" + operation)))
            .timeout(timeout)
            .header("Content-Type", "application/json")
            .header("Accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(Json.writeBytes(request)))
            .build();
    return send(post);
  }

  /** {@code GET /v1/discovery}. */
  public JsonNode discovery() {
    return send(
        authorized(HttpRequest.newBuilder(base.resolve("v1/discovery")))
            .timeout(timeout)
            .GET()
            .build());
  }

  private HttpRequest.Builder authorized(HttpRequest.Builder request) {
    return token == null ? request : request.header("Authorization", "Bearer " + token);
  }

  private JsonNode send(HttpRequest request) {
    HttpResponse<byte[]> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw SgmException.unreachable(request.uri().toString(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while calling " + request.uri());
    }
    JsonNode body;
    try {
      body = Json.parse(response.body());
    } catch (SgmException e) {
      throw new SgmException(
          ErrorCode.INTERNAL,
          "the server at "
              + base
              + " answered "
              + response.statusCode()
              + " with a body that is not JSON");
    }
    if (response.statusCode() != 200) {
      throw body.has("error")
          ? SgmException.fromJson(body)
          : new SgmException(
              ErrorCode.INTERNAL, "HTTP " + response.statusCode() + " without an error object");
    }
    return body;
  }

  /**
   * Ends the client's selector thread: a JVM that exits while a thread waits in native code waits
   * 300 ms more for it.
   */
  @Override
  public void close() {
    http.close();
  }
}
