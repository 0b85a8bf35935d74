package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
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
import java.util.concurrent.atomic.AtomicLong;

/**
 * A client of the SGM tools over MCP's Streamable HTTP: {@code call("retrieve", query)} is a {@code
 * tools/call} of {@code sgm_retrieve}; an {@code isError} result becomes the {@link SgmException}
 * it carries. It initializes its session on construction.
 */
public final class McpClient implements SgmClient {
  private final HttpClient http = HttpClient.newHttpClient();
  private final URI endpoint;
  private final AtomicLong ids = new AtomicLong();
  private final String session;
  private final String token;

  public McpClient(String endpoint) {
    this(endpoint, null);
  }

  /** A client that sends {@code token} (when not null) as {@code Authorization: Bearer}. */
  public McpClient(String endpoint, String token) {
    this.token = token;
    this.endpoint = URI.create(endpoint);
    ObjectNode params = Json.object();
    params.put("protocolVersion", McpServer.VERSIONS.get(0));
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", "sgm-java-mcp-client").put("version", "1");
    HttpResponse<byte[]> initialized = post(request("initialize", params), null);
    if (initialized.statusCode() == 401 || initialized.statusCode() == 403) {
      throw new SgmException(
          initialized.statusCode() == 401 ? ErrorCode.UNAUTHENTICATED : ErrorCode.FORBIDDEN,
          Json.parse(initialized.body()).path("error").path("message").asText("refused"));
    }
    this.session =
        initialized
            .headers()
            .firstValue("Mcp-Session-Id")
            .orElseThrow(
                () ->
                    new SgmException(
                        ErrorCode.UNAVAILABLE, endpoint + " did not start an MCP session"));
    ObjectNode notification =
        Json.object().put("jsonrpc", "2.0").put("method", "notifications/initialized");
    post(notification, session);
  }

  private ObjectNode request(String method, JsonNode params) {
    ObjectNode request = Json.object();
    request.put("jsonrpc", "2.0");
    request.put("id", ids.incrementAndGet());
    request.put("method", method);
    request.set("params", params);
    return request;
  }

  private HttpResponse<byte[]> post(JsonNode message, String session) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(endpoint)
            .timeout(Duration.ofSeconds(30))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .POST(HttpRequest.BodyPublishers.ofByteArray(Json.writeBytes(message)));
    if (session != null) {
      request.header("Mcp-Session-Id", session);
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw new SgmException(
          ErrorCode.UNAVAILABLE, "cannot reach " + endpoint + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted");
    }
  }

  /** Any MCP request of this session, returning its result. */
  public JsonNode rpc(String method, JsonNode params) {
    HttpResponse<byte[]> response = post(request(method, params), session);
    JsonNode body = Json.parse(response.body());
    if (response.statusCode() == 401) {
      throw new SgmException(
          ErrorCode.UNAUTHENTICATED, body.path("error").path("message").asText("no valid token"));
    }
    if (body.has("error")) {
      throw SgmException.invalidRequest("params", body.path("error").path("message").asText());
    }
    return body.path("result");
  }

  @Override
  public JsonNode call(String operation, JsonNode request) {
    ObjectNode params = Json.object();
    params.put("name", McpTools.toolName(operation));
    params.set("arguments", request);
    JsonNode result = rpc("tools/call", params);
    if (result.path("isError").asBoolean(false)) {
      throw SgmException.fromJson(result.path("structuredContent"));
    }
    return result.path("structuredContent");
  }
}
