package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Model Context Protocol over SGM: JSON-RPC 2.0 messages in, responses out, for any transport
 * (stdio, Streamable HTTP). Tools run SGM operations; records of the session's scope are resources.
 *
 * <p>Written against the protocol directly rather than with the MCP Java SDK: the SDK brings a
 * second Jackson (3.x) and Reactor, and would re-serialise tool results with its own mapper, which
 * does not keep numbers such as {@code 1.0} or {@code 12345678901234567890} as written; SGM
 * promises that.
 */
public final class McpServer {
  private static final System.Logger LOG = System.getLogger(McpServer.class.getName());

  /** Protocol revisions this server speaks, newest first. */
  static final List<String> VERSIONS = List.of("2025-06-18", "2025-03-26", "2024-11-05");

  private final McpTools tools;
  private final SgmClient backend;
  private final String version;
  private final boolean subscriptions;

  /**
   * @param backend where operations run (the engine in-process, or a server)
   * @param operations the operations to offer as tools, as discovery describes them
   * @param version this implementation's version, for serverInfo
   */
  public McpServer(SgmClient backend, List<OperationDescriptor> operations, String version) {
    this(backend, operations, version, false);
  }

  /**
   * As above; with {@code subscriptions}, {@code resources/subscribe} is offered (the transport
   * passes each session's {@link McpSubscriptions} to {@link #handle(JsonNode, McpDefaults,
   * McpSubscriptions)} and delivers its notifications).
   */
  McpServer(
      SgmClient backend,
      List<OperationDescriptor> operations,
      String version,
      boolean subscriptions) {
    this.backend = backend;
    this.tools = new McpTools(backend, operations);
    this.version = version;
    this.subscriptions = subscriptions;
  }

  /**
   * Handles one JSON-RPC message: returns the response to a request, or null for a notification or
   * a response from the client.
   */
  public ObjectNode handle(JsonNode message, McpDefaults defaults) {
    return handle(message, defaults, null);
  }

  /** As {@link #handle(JsonNode, McpDefaults)}, with the session's subscriptions. */
  ObjectNode handle(JsonNode message, McpDefaults defaults, McpSubscriptions subscribed) {
    if (!message.isObject() || !"2.0".equals(message.path("jsonrpc").asText())) {
      return error(null, -32600, "not a JSON-RPC 2.0 message");
    }
    JsonNode id = message.get("id");
    if (id != null && !(id.isTextual() || id.isNumber() || id.isNull())) {
      return error(null, -32600, "id must be a string, a number or null");
    }
    JsonNode methodNode = message.get("method");
    if (methodNode == null) {
      if (id == null || message.has("result") || message.has("error")) {
        return null; // a response to something we never sent, or nothing to answer to
      }
      return error(id, -32600, "a request needs a method");
    }
    if (!methodNode.isTextual()) {
      return id == null ? null : error(id, -32600, "method must be a string");
    }
    String method = methodNode.textValue();
    if (id == null) {
      return null; // notifications (initialized, cancelled, ...) need no answer
    }
    JsonNode params = message.path("params");
    if (!params.isMissingNode() && !params.isObject() && !params.isNull()) {
      return error(id, -32602, "params must be an object");
    }
    try {
      return switch (method) {
        case "initialize" -> result(id, initialize(params));
        case "ping" -> result(id, Json.object());
        case "tools/list" -> result(id, tools.list());
        case "tools/call" -> result(id, callTool(params, defaults));
        case "resources/list" -> {
          if (subscribed != null && defaults.scope() != null) {
            subscribed.followList(
                dev.sgm.api.Scope.fromJson(
                    defaults.scope(), "scope", dev.sgm.api.ErrorCode.INVALID_REQUEST));
          }
          yield result(id, listResources(params, defaults));
        }
        case "resources/read" -> result(id, readResource(params));
        case "resources/templates/list" -> result(id, templates());
        case "resources/subscribe", "resources/unsubscribe" -> {
          if (subscribed == null) {
            yield error(id, -32601, "this server does not offer resource subscriptions");
          }
          String uri = params.path("uri").asText(null);
          if (method.equals("resources/subscribe")) {
            subscribed.subscribe(uri);
          } else {
            subscribed.unsubscribe(uri);
          }
          yield result(id, Json.object());
        }
        default -> error(id, -32601, "no method " + method);
      };
    } catch (SgmException e) {
      return error(id, -32602, e.getMessage());
    } catch (RuntimeException e) {
      // One bad message must not end the session (over stdio, the process); the log has why.
      LOG.log(System.Logger.Level.ERROR, "MCP method " + method + " failed", e);
      return error(id, -32603, "internal error; see the server's log");
    }
  }

  private ObjectNode initialize(JsonNode params) {
    String asked = params.path("protocolVersion").asText(VERSIONS.get(0));
    ObjectNode result = Json.object();
    result.put("protocolVersion", VERSIONS.contains(asked) ? asked : VERSIONS.get(0));
    ObjectNode capabilities = result.putObject("capabilities");
    capabilities.putObject("tools").put("listChanged", false);
    capabilities
        .putObject("resources")
        .put("subscribe", subscriptions)
        .put("listChanged", subscriptions);
    ObjectNode info = result.putObject("serverInfo");
    info.put("name", "sgm-java");
    info.put("version", version);
    result.put(
        "instructions",
        "Shared, scoped memory. Use sgm_retrieve (compact, small limit) to recall what is known before"
            + " working, sgm_store with just 'content' to remember facts, notes and decisions, and the"
            + " rules/tasks/handoffs tools to coordinate with other agents.");
    return result;
  }

  private ObjectNode callTool(JsonNode params, McpDefaults defaults) {
    String name = params.path("name").asText("");
    ObjectNode result = Json.object();
    try {
      JsonNode response = tools.call(name, params.get("arguments"), defaults);
      result
          .putArray("content")
          .addObject()
          .put("type", "text")
          .put("text", McpTools.summary(name, response));
      result.set("structuredContent", response);
      result.put("isError", false);
    } catch (SgmException e) {
      // A failed operation is a tool result the agent can read, not a protocol error.
      result
          .putArray("content")
          .addObject()
          .put("type", "text")
          .put("text", e.code().wireName() + ": " + e.getMessage());
      result.set("structuredContent", e.toJson());
      result.put("isError", true);
    }
    return result;
  }

  static String uri(JsonNode scope, String id) {
    StringBuilder canonical = new StringBuilder();
    scope.properties().stream()
        .sorted(java.util.Map.Entry.comparingByKey())
        .forEach(
            e ->
                canonical
                    .append(canonical.isEmpty() ? "" : ";")
                    .append(e.getKey())
                    .append('=')
                    .append(e.getValue().asText()));
    return "sgm://record/"
        + URLEncoder.encode(canonical.toString(), StandardCharsets.UTF_8)
        + "/"
        + URLEncoder.encode(id, StandardCharsets.UTF_8);
  }

  private ObjectNode listResources(JsonNode params, McpDefaults defaults) {
    ObjectNode result = Json.object();
    ArrayNode resources = result.putArray("resources");
    if (defaults.scope() == null) {
      return result;
    }
    ObjectNode query = Json.object();
    query.set("scope", defaults.scope().deepCopy());
    query.put("limit", 100);
    if (params.hasNonNull("cursor")) {
      query.put("cursor", params.get("cursor").asText());
    }
    JsonNode page = backend.call("retrieve", query);
    for (JsonNode record : page.path("records")) {
      ObjectNode resource = resources.addObject();
      resource.put("uri", uri(record.path("scope"), record.path("id").asText()));
      resource.put("name", record.path("id").asText());
      resource.put(
          "title",
          record
              .path("title")
              .asText(record.path("type").asText() + " " + record.path("id").asText()));
      resource.put("mimeType", "application/json");
    }
    if (page.hasNonNull("next_cursor")) {
      result.set("nextCursor", page.get("next_cursor"));
    }
    return result;
  }

  private ObjectNode readResource(JsonNode params) {
    String uri = params.path("uri").asText("");
    String prefix = "sgm://record/";
    int slash = uri.indexOf('/', prefix.length());
    if (!uri.startsWith(prefix) || slash < 0) {
      throw SgmException.invalidRequest(
          "uri", "'" + uri + "' is not an sgm://record/{scope}/{id} URI");
    }
    String canonical;
    String id;
    try {
      canonical = URLDecoder.decode(uri.substring(prefix.length(), slash), StandardCharsets.UTF_8);
      id = URLDecoder.decode(uri.substring(slash + 1), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw SgmException.invalidRequest("uri", "'" + uri + "' is not percent-encoded correctly");
    }
    ObjectNode scope = Json.object();
    for (String pair : canonical.split(";")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        scope.put(pair.substring(0, eq), pair.substring(eq + 1));
      }
    }
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("id", id);
    JsonNode record = backend.call("read", request).path("record");
    ObjectNode result = Json.object();
    ObjectNode content = result.putArray("contents").addObject();
    content.put("uri", uri);
    content.put("mimeType", "application/json");
    content.put("text", Json.write(record));
    return result;
  }

  private static ObjectNode templates() {
    ObjectNode result = Json.object();
    ObjectNode template = result.putArray("resourceTemplates").addObject();
    template.put("uriTemplate", "sgm://record/{scope}/{id}");
    template.put("name", "record");
    template.put(
        "description",
        "One record: scope as key=value pairs joined by ';', URL-encoded, then its id.");
    template.put("mimeType", "application/json");
    return result;
  }

  private static ObjectNode result(JsonNode id, JsonNode result) {
    ObjectNode response = Json.object();
    response.put("jsonrpc", "2.0");
    response.set("id", id);
    response.set("result", result);
    return response;
  }

  static ObjectNode error(JsonNode id, int code, String message) {
    ObjectNode response = Json.object();
    response.put("jsonrpc", "2.0");
    response.set("id", id == null ? Json.object().nullNode() : id);
    response.putObject("error").put("code", code).put("message", message);
    return response;
  }
}
