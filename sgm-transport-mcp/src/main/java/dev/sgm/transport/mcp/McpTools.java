package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.OperationEffects;
import dev.sgm.api.Operations;
import dev.sgm.api.QuotedMemory;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The SGM operations as MCP tools: one tool per operation discovery describes ({@code sgm_store},
 * {@code sgm_history_versions}, ...), with its declared description and request schema as the
 * tool's input schema. On top, two conveniences of this transport: {@code sgm_store} also takes
 * just {@code content}, and {@code sgm_retrieve} a {@code compact} flag. Calls fill in the
 * session's default scope where the operation takes one, then run the operation unchanged.
 */
final class McpTools {
  /** The operation whose tool also takes just content (a note in the session's scope). */
  private static final String STORE = Operations.STORE;

  /** The operation whose tool also takes {@code compact}. */
  private static final String RETRIEVE = Operations.RETRIEVE;

  private static final String SCOPE_HINT =
      "e.g. {\"project\": \"myproject\"}; default: the session's scope";

  /** The error object of a failed call (CONTRACT §5). */
  private static final ObjectNode ERROR_SCHEMA =
      Json.parseObject(
          """
          {"description": "A failed call (isError): the contract's error object.",
           "type": "object", "required": ["error"],
           "properties": {"error": {"type": "object", "required": ["code", "message"],
             "properties": {"code": {"type": "string"}, "message": {"type": "string"},
               "details": {"type": "array", "items": {"type": "object"}}}}}}
          """,
          "error schema");

  private final SgmClient backend;
  private final Map<String, OperationDescriptor> operations = new LinkedHashMap<>();

  McpTools(SgmClient backend, List<OperationDescriptor> operations) {
    this.backend = backend;
    operations.forEach(op -> this.operations.put(toolName(op.name()), op));
  }

  static String toolName(String operation) {
    return "sgm_" + operation.replace('.', '_');
  }

  /** Whether a tool of that name is offered. */
  boolean has(String name) {
    return operations.containsKey(name);
  }

  /**
   * The tools/list result: for each operation its name, title and description, the schemas of what
   * it takes and answers, and what its declaration says it does, as hints.
   */
  ObjectNode list() {
    ObjectNode result = Json.object();
    ArrayNode tools = result.putArray("tools");
    for (Map.Entry<String, OperationDescriptor> entry : operations.entrySet()) {
      OperationDescriptor operation = entry.getValue();
      ObjectNode tool = tools.addObject();
      tool.put("name", entry.getKey());
      tool.put("title", operation.title());
      String description = operation.description();
      if (operation.name().equals(STORE)) {
        description +=
            " Or give just 'content' (and optionally 'title', 'type' such as note, fact or"
                + " decision, 'tags', 'id') to remember it in your default scope.";
      }
      tool.put("description", description);
      tool.set("inputSchema", inputSchema(operation));
      ObjectNode output = outputSchema(operation);
      if (output != null) {
        tool.set("outputSchema", output);
      }
      OperationEffects effects = operation.effects();
      ObjectNode annotations = tool.putObject("annotations");
      annotations.put("title", operation.title());
      annotations.put("readOnlyHint", effects.readOnly());
      if (!effects.readOnly()) {
        annotations.put("destructiveHint", effects.destructive());
        annotations.put("idempotentHint", effects.idempotent());
      }
      // Memory is a closed world: no tool reaches beyond the server's own store.
      annotations.put("openWorldHint", false);
    }
    return result;
  }

  /**
   * The declared response schema as a client validates a tool's structured result against it:
   * standing alone, for {@code retrieve} also the compact entries this transport offers, and either
   * that or the contract's error object, which a failed call (isError) carries as its structured
   * content (clients of the 2025 revisions validate that too). Null when the operation declares
   * none.
   */
  private static ObjectNode outputSchema(OperationDescriptor operation) {
    if (operation.responseSchema() == null) {
      return null;
    }
    ObjectNode answer = answerSchema(operation);
    ObjectNode schema = Json.object();
    schema.put("type", "object");
    schema.putArray("anyOf").add(answer).add(ERROR_SCHEMA.deepCopy());
    return schema;
  }

  private static ObjectNode answerSchema(OperationDescriptor operation) {
    ObjectNode schema = operation.responseSchema().deepCopy();
    schema.remove("$schema");
    standAlone(schema);
    if (!schema.has("type")) {
      schema.put("type", "object");
    }
    if (operation.name().equals(RETRIEVE)) {
      JsonNode records = schema.path("properties").path("records");
      if (records.isObject() && records.has("items")) {
        ObjectNode compact = Json.object();
        compact.put(
            "description", "With compact: true, a record's id, type, title and first line.");
        compact.put("type", "object");
        compact.putArray("required").add("id").add("type");
        ArrayNode either = Json.array().add(records.get("items")).add(compact);
        ((ObjectNode) records).putObject("items").set("anyOf", either);
      }
    }
    return schema;
  }

  /**
   * The declared request schema as an agent sees it: standing alone (a reference to a published
   * schema becomes a described object), the scope optional where the session has a default, plus
   * this transport's conveniences.
   */
  private static ObjectNode inputSchema(OperationDescriptor operation) {
    ObjectNode schema = operation.requestSchema().deepCopy();
    schema.remove("$schema");
    standAlone(schema);
    ObjectNode props = schema.withObjectProperty("properties");
    if (props.path("scope").isObject()) {
      ((ObjectNode) props.get("scope")).put("description", SCOPE_HINT);
      optional(schema, "scope");
    }
    if (operation.name().equals(STORE)) {
      ObjectNode record = props.withObjectProperty("record");
      record.put("description", "A complete record instead of the fields below.");
      optional(schema, "record");
      props.putObject("content").put("type", "string").put("description", "What to remember.");
      props.putObject("title").put("type", "string");
      props
          .putObject("type")
          .put("type", "string")
          .put("description", "note (default), fact, decision, rule, task, ...");
      props.putObject("tags").put("type", "array").putObject("items").put("type", "string");
      props.putObject("id").put("type", "string").put("description", "Default: generated.");
      ObjectNode scope = JsonSchemas.scope(SCOPE_HINT);
      props.set("scope", scope);
    }
    if (operation.name().equals(RETRIEVE)) {
      props
          .putObject("compact")
          .put("type", "boolean")
          .put("description", "Only ids, titles and first lines.");
    }
    return schema;
  }

  private static void optional(ObjectNode schema, String field) {
    JsonNode required = schema.get("required");
    if (required instanceof ArrayNode list) {
      for (int i = list.size() - 1; i >= 0; i--) {
        if (list.get(i).asText().equals(field)) {
          list.remove(i);
        }
      }
      if (list.isEmpty()) {
        schema.remove("required");
      }
    }
  }

  /** Replaces references to published schemas, which a tool's caller may not fetch. */
  private static void standAlone(JsonNode node) {
    if (node instanceof ObjectNode object) {
      JsonNode ref = object.get("$ref");
      if (ref != null && ref.isTextual() && ref.textValue().startsWith("https://")) {
        object.remove("$ref");
        object.put("type", "object");
        if (!object.has("description")) {
          object.put("description", "As " + ref.textValue() + " defines it.");
        }
      }
      object.forEach(McpTools::standAlone);
    } else if (node != null && node.isArray()) {
      node.forEach(McpTools::standAlone);
    }
  }

  /** Runs a tool: the operation's JSON response, or an SgmException. */
  JsonNode call(String name, JsonNode arguments, McpDefaults defaults) {
    OperationDescriptor operation = operations.get(name);
    if (operation == null) {
      throw new SgmException(ErrorCode.UNSUPPORTED_CAPABILITY, "no tool named '" + name + "'");
    }
    ObjectNode request =
        arguments != null && arguments.isObject()
            ? ((ObjectNode) arguments).deepCopy()
            : Json.object();
    if (operation.name().equals(STORE)) {
      return backend.call(STORE, storeRequest(request, defaults));
    }
    boolean compact = operation.name().equals(RETRIEVE) && request.path("compact").asBoolean(false);
    if (operation.name().equals(RETRIEVE)) {
      request.remove("compact");
    }
    boolean takesScope = operation.requestSchema().path("properties").has("scope");
    if (!request.has("scope") && defaults.scope() != null && takesScope) {
      request.set("scope", defaults.scope().deepCopy());
    }
    JsonNode response = backend.call(operation.name(), request);
    return compact ? compact(response) : response;
  }

  private static ObjectNode storeRequest(ObjectNode args, McpDefaults defaults) {
    ObjectNode request = Json.object();
    ObjectNode record;
    if (args.has("record")) {
      if (!args.get("record").isObject()) {
        throw SgmException.invalidRequest("record", "must be an object");
      }
      record = (ObjectNode) args.get("record");
    } else {
      if (!args.has("content") || args.get("content").isNull()) {
        throw SgmException.invalidRequest(
            "content", "give the content to remember, or a complete record");
      }
      if (!args.get("content").isTextual()) {
        throw SgmException.invalidRequest(
            "content",
            "must be a string, was "
                + args.get("content").getNodeType().name().toLowerCase(java.util.Locale.ROOT));
      }
      record = Json.object();
      String type = args.path("type").asText("note");
      record.put("id", args.path("id").asText(MemoryRecord.newId(type)));
      record.put("type", type);
      if (args.has("scope")) {
        record.set("scope", args.get("scope"));
      } else if (defaults.scope() != null) {
        record.set("scope", defaults.scope().deepCopy());
      }
      if (args.has("title")) {
        record.set("title", args.get("title"));
      }
      record.set("content", args.get("content"));
      if (args.has("tags")) {
        record.set("tags", args.get("tags"));
      }
    }
    if (!record.has("scope") && defaults.scope() != null) {
      record.set("scope", defaults.scope().deepCopy());
    }
    if (!record.has("provenance") && (defaults.agent() != null || !args.has("record"))) {
      // A complete record is left as written unless the session has an agent to fill in.
      record
          .putObject("provenance")
          .put("agent", defaults.agent() != null ? defaults.agent() : "mcp-agent");
    }
    if (record.path("provenance").isObject() && !record.path("provenance").has("origin")) {
      ((ObjectNode) record.get("provenance")).put("origin", "mcp");
    }
    request.set("record", record);
    for (String guard : List.of("expected_version", "if_absent")) {
      if (args.has(guard)) {
        request.set(guard, args.get(guard));
      }
    }
    return request;
  }

  /**
   * Ids, types, titles and first lines only, so a large memory does not flood an agent's context.
   */
  private static JsonNode compact(JsonNode result) {
    ObjectNode compact = Json.object();
    ArrayNode records = compact.putArray("records");
    for (JsonNode record : result.path("records")) {
      ObjectNode entry = records.addObject();
      entry.put("id", record.path("id").asText());
      entry.put("type", record.path("type").asText());
      entry.set("scope", record.path("scope"));
      entry.put("agent", record.path("provenance").path("agent").asText("?"));
      if (record.has("title")) {
        entry.set("title", record.get("title"));
      }
      String content = record.path("content").asText("");
      String first = content.lines().findFirst().orElse("");
      if (!first.isEmpty()) {
        entry.put("first_line", first.length() > 200 ? first.substring(0, 199) + "…" : first);
      }
      entry.put("updated_at", record.path("updated_at").asText());
    }
    compact.set("total", result.path("total"));
    if (result.hasNonNull("next_cursor")) {
      compact.set("next_cursor", result.get("next_cursor"));
    }
    return compact;
  }

  /**
   * A short rendering of a result, for the text part of a tool result. Records come as quoted
   * memory, one line each with who wrote it, when and its id, so that a stored instruction reads as
   * data ({@link QuotedMemory}).
   */
  static String summary(String name, JsonNode result) {
    if (result.has("records") && result.has("total")) {
      StringBuilder lines = new StringBuilder();
      for (JsonNode r : result.path("records")) {
        String title =
            r.path("title").asText(r.path("first_line").asText(r.path("content").asText("")));
        lines.append("- ").append(attribution(r));
        if (!title.isEmpty()) {
          lines.append(": ").append(title.lines().findFirst().orElse(""));
        }
        lines.append('\n');
      }
      String count =
          result.path("records").size() + " of " + result.path("total").asLong() + " records";
      return lines.isEmpty()
          ? count
          : count + "; " + QuotedMemory.NOTICE + ":\n" + QuotedMemory.block(lines);
    }
    if (result.has("record")) {
      JsonNode r = result.get("record");
      String line =
          attribution(r)
              + ", version "
              + r.path("version").asLong()
              + (r.has("content")
                  ? ": " + r.path("content").asText().lines().findFirst().orElse("")
                  : "");
      return r.path("type").asText()
          + " "
          + r.path("id").asText()
          + "; "
          + QuotedMemory.NOTICE
          + ":\n"
          + QuotedMemory.block(line);
    }
    String text = Json.write(result);
    return text.length() > 500 ? text.substring(0, 499) + "…" : text;
  }

  /** {@code [type · agent · date · id]} of a record or a compact entry. */
  private static String attribution(JsonNode r) {
    String agent = r.path("agent").asText(r.path("provenance").path("agent").asText("?"));
    String date = r.path("updated_at").asText("");
    return "["
        + r.path("type").asText("?")
        + " · "
        + agent
        + (date.length() >= 10 ? " · " + date.substring(0, 10) : "")
        + " · "
        + r.path("id").asText()
        + "]";
  }
}
