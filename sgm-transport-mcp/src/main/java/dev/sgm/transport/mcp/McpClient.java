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
 * it carries. By default it speaks MCP 2026-07-28, where every request stands alone (its version
 * and capabilities in {@code _meta}, mirrored in headers), so any node may answer it; {@link
 * #legacy} begins a 2025 session with {@code initialize} instead.
 */
public final class McpClient implements SgmClient, AutoCloseable {
  private final HttpClient http = HttpClient.newHttpClient();
  private final URI endpoint;
  private final AtomicLong ids = new AtomicLong();
  private final String session;
  private final String token;
  private final boolean modern;

  public McpClient(String endpoint) {
    this(endpoint, null);
  }

  /** A client that sends {@code token} (when not null) as {@code Authorization: Bearer}. */
  public McpClient(String endpoint, String token) {
    this(endpoint, token, true);
  }

  /** A client of the 2025 revisions: a session that {@code initialize} begins. */
  public static McpClient legacy(String endpoint, String token) {
    return new McpClient(endpoint, token, false);
  }

  private McpClient(String endpoint, String token, boolean modern) {
    this.token = token;
    this.endpoint = URI.create(endpoint);
    this.modern = modern;
    if (modern) {
      this.session = null;
      HttpResponse<byte[]> discovered = post(request("server/discover", Json.object()), null);
      refused(discovered);
      return;
    }
    ObjectNode params = Json.object();
    params.put("protocolVersion", McpProtocol.LEGACY.get(0));
    params.putObject("capabilities");
    params.putObject("clientInfo").put("name", "sgm-java-mcp-client").put("version", "1");
    HttpResponse<byte[]> initialized = post(request("initialize", params), null);
    refused(initialized);
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

  /** Fails with the caller's error when the server refused the token. */
  private static void refused(HttpResponse<byte[]> response) {
    if (response.statusCode() == 401 || response.statusCode() == 403) {
      throw new SgmException(
          response.statusCode() == 401 ? ErrorCode.UNAUTHENTICATED : ErrorCode.FORBIDDEN,
          Json.parse(response.body()).path("error").path("message").asText("refused"));
    }
  }

  private ObjectNode request(String method, JsonNode params) {
    ObjectNode request = Json.object();
    request.put("jsonrpc", "2.0");
    request.put("id", ids.incrementAndGet());
    request.put("method", method);
    ObjectNode withMeta = params.isObject() ? ((ObjectNode) params).deepCopy() : Json.object();
    if (modern) {
      McpProtocol.envelopeOf(withMeta, "sgm-java-mcp-client");
    }
    request.set("params", withMeta);
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
    if (modern && message.has("method")) {
      String method = message.get("method").asText();
      request.header("MCP-Protocol-Version", McpProtocol.MODERN);
      request.header("Mcp-Method", method);
      JsonNode name = message.path("params").path(method.equals("resources/read") ? "uri" : "name");
      if ((method.equals("tools/call")
              || method.equals("prompts/get")
              || method.equals("resources/read"))
          && name.isTextual()) {
        request.header("Mcp-Name", McpProtocol.headerValue(name.textValue()));
      }
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    } catch (IOException e) {
      throw SgmException.unreachable(String.valueOf(endpoint), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted");
    }
  }

  /** Any MCP request (of the session, in 2025), returning its result. */
  public JsonNode rpc(String method, JsonNode params) {
    HttpResponse<byte[]> response = post(request(method, params), session);
    JsonNode body = Json.parse(response.body());
    if (response.statusCode() == 401) {
      throw new SgmException(
          ErrorCode.UNAUTHENTICATED, body.path("error").path("message").asText("no valid token"));
    }
    if (body.has("error")) {
      throw McpProtocol.failure(body.path("error"));
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

  /**
   * Ends the client's selector thread: a JVM that exits while a thread waits in native code waits
   * 300 ms more for it. The server ends an idle session by itself.
   */
  @Override
  public void close() {
    http.close();
  }
}
