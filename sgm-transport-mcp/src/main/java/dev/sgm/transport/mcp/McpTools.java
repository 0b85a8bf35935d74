package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.time.LocalDate;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The SGM operations as MCP tools: one tool per operation ({@code sgm_store}, {@code
 * sgm_history_versions}, ...), with an input schema and a description an agent can act on. Calls
 * fill in the session's defaults, then run the operation unchanged.
 */
final class McpTools {
  /** Descriptions of the operations, for the agent deciding which tool to use. */
  private static final Map<String, String> DESCRIPTIONS =
      Map.ofEntries(
          Map.entry(
              "discover",
              "What this memory server supports: protocol version, capabilities, profiles, limits."),
          Map.entry(
              "store",
              "Remember something. Give 'content' (and optionally 'title', 'type' such as note, fact or"
                  + " decision, 'tags', 'id') to store it in your default scope, or a complete 'record'."
                  + " Storing the same id again replaces the record (unchanged content is a no-op)."),
          Map.entry("store_batch", "Store up to 1000 complete records at once, all or nothing."),
          Map.entry(
              "retrieve",
              "Search memory. Filter by 'text' (ranked full-text), 'tags', 'types', 'ids', time, or"
                  + " 'filter' on data./metadata. fields. Use 'compact': true and a small 'limit' to keep"
                  + " results short; page with 'cursor'. 'scope_mode' descendants/ancestors widens the scope."),
          Map.entry(
              "read", "Read one record by its id (in your default scope unless you give 'scope')."),
          Map.entry("delete", "Delete one record by its id."),
          Map.entry(
              "put_content",
              "Keep a large body by its hash and get a reference to put in a record."),
          Map.entry("history.versions", "List the past versions of a record, newest first."),
          Map.entry("history.read", "Read one past version of a record."),
          Map.entry("history.restore", "Make a past version of a record current again."),
          Map.entry("history.undelete", "Bring back a deleted record."),
          Map.entry(
              "snapshots.create", "Name the present state of a scope, to query or restore later."),
          Map.entry("snapshots.list", "List the snapshots of a scope."),
          Map.entry("snapshots.retrieve", "Search memory as it was at a snapshot."),
          Map.entry("snapshots.restore", "Put a scope back as it was at a snapshot."),
          Map.entry(
              "tasks.claim", "Claim an open task for an agent (fails if another agent has it)."),
          Map.entry(
              "tasks.transition",
              "Move a task to another state (open, in_progress, blocked, done, cancelled)."),
          Map.entry(
              "tasks.ready",
              "List the tasks ready to work on: open, unassigned, dependencies done."),
          Map.entry(
              "rules.active",
              "List the rules in force for a scope, including its project's, by severity."),
          Map.entry("status.current", "List the latest status of each agent in a scope."),
          Map.entry("handoffs.accept", "Accept a handoff of unfinished work."),
          Map.entry("handoffs.complete", "Mark an accepted handoff completed."),
          Map.entry("code.symbols", "Find code symbols by name, prefix, kind, path or path glob."),
          Map.entry("code.references_to", "List every recorded reference to a code symbol."),
          Map.entry(
              "code.diffs_touching",
              "List the recorded diffs that touch a path or glob, newest first."),
          Map.entry(
              "handoffs.resume",
              "Pick up a handoff: returns it with every record it references, in one call."));

  private final SgmClient backend;
  private final List<String> operations;

  McpTools(SgmClient backend, List<String> operations) {
    this.backend = backend;
    this.operations = List.copyOf(operations);
  }

  static String toolName(String operation) {
    return "sgm_" + operation.replace('.', '_');
  }

  /** The tools/list result. */
  ObjectNode list() {
    ObjectNode result = Json.object();
    ArrayNode tools = result.putArray("tools");
    for (String operation : operations) {
      ObjectNode tool = tools.addObject();
      tool.put("name", toolName(operation));
      tool.put(
          "description",
          DESCRIPTIONS.getOrDefault(operation, "The SGM operation " + operation + "."));
      tool.set("inputSchema", schema(operation));
    }
    return result;
  }

  private static ObjectNode schema(String operation) {
    ObjectNode schema = Json.object();
    schema.put("type", "object");
    ObjectNode props = schema.putObject("properties");
    ObjectNode scope =
        Json.object()
            .put("type", "object")
            .put("description", "e.g. {\"project\": \"myproject\"}; default: the session's scope");
    scope.putObject("additionalProperties").put("type", "string");
    switch (operation) {
      case "store" -> {
        props.putObject("content").put("type", "string").put("description", "What to remember.");
        props.putObject("title").put("type", "string");
        props
            .putObject("type")
            .put("type", "string")
            .put("description", "note (default), fact, decision, rule, task, ...");
        props.putObject("tags").put("type", "array").putObject("items").put("type", "string");
        props.putObject("id").put("type", "string").put("description", "Default: generated.");
        props.set("scope", scope);
        props
            .putObject("record")
            .put("type", "object")
            .put("description", "A complete record instead of the fields above.");
        props.putObject("expected_version").put("type", "integer");
        props.putObject("if_absent").put("type", "boolean");
      }
      case "retrieve" -> {
        props.set("scope", scope);
        props.putObject("text").put("type", "string");
        props.putObject("tags").put("type", "array").putObject("items").put("type", "string");
        props.putObject("types").put("type", "array").putObject("items").put("type", "string");
        props.putObject("ids").put("type", "array").putObject("items").put("type", "string");
        props
            .putObject("scope_mode")
            .put("type", "string")
            .putArray("enum")
            .add("exact")
            .add("descendants")
            .add("ancestors")
            .add("lineage");
        props.putObject("filter").put("type", "object");
        props.putObject("limit").put("type", "integer").put("minimum", 1).put("maximum", 1000);
        props.putObject("cursor").put("type", "string");
        props
            .putObject("compact")
            .put("type", "boolean")
            .put("description", "Only ids, titles and first lines.");
        props.putObject("order_by").put("type", "string");
      }
      case "read", "delete" -> {
        props.set("scope", scope);
        props.putObject("id").put("type", "string");
        schema.putArray("required").add("id");
      }
      default -> {
        schema.put("additionalProperties", true);
        props.set("scope", scope);
      }
    }
    return schema;
  }

  /** Runs a tool: the operation's JSON response, or an SgmException. */
  JsonNode call(String name, JsonNode arguments, McpDefaults defaults) {
    String operation = null;
    for (String op : operations) {
      if (toolName(op).equals(name)) {
        operation = op;
      }
    }
    if (operation == null) {
      throw new SgmException(ErrorCode.UNSUPPORTED_CAPABILITY, "no tool named '" + name + "'");
    }
    ObjectNode request =
        arguments != null && arguments.isObject()
            ? ((ObjectNode) arguments).deepCopy()
            : Json.object();
    if (operation.equals("store")) {
      return backend.call("store", storeRequest(request, defaults));
    }
    boolean compact = operation.equals("retrieve") && request.path("compact").asBoolean(false);
    request.remove("compact");
    if (!request.has("scope")
        && defaults.scope() != null
        && !operation.equals("discover")
        && !operation.equals("put_content")
        && !operation.equals("store_batch")) {
      request.set("scope", defaults.scope().deepCopy());
    }
    JsonNode response = backend.call(operation, request);
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
      if (!args.path("content").isTextual()) {
        throw SgmException.invalidRequest(
            "content", "give the content to remember, or a complete record");
      }
      record = Json.object();
      String type = args.path("type").asText("note");
      record.put(
          "id",
          args.path("id")
              .asText(
                  type
                      + "-"
                      + LocalDate.now()
                      + "-"
                      + UUID.randomUUID().toString().substring(0, 8)));
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

  /** A one-line rendering of a result, for the text part of a tool result. */
  static String summary(String name, JsonNode result) {
    if (result.has("records") && result.has("total")) {
      StringBuilder text =
          new StringBuilder(
              result.path("records").size() + " of " + result.path("total").asLong() + " records");
      for (JsonNode r : result.path("records")) {
        text.append("\n- ").append(r.path("id").asText());
        String title =
            r.path("title").asText(r.path("first_line").asText(r.path("content").asText("")));
        if (!title.isEmpty()) {
          text.append(": ").append(title.lines().findFirst().orElse(""));
        }
      }
      return text.toString();
    }
    if (result.has("record")) {
      JsonNode r = result.get("record");
      return r.path("type").asText()
          + " "
          + r.path("id").asText()
          + " (version "
          + r.path("version").asLong()
          + ")"
          + (r.has("content")
              ? ": " + r.path("content").asText().lines().findFirst().orElse("")
              : "");
    }
    String text = Json.write(result);
    return text.length() > 500 ? text.substring(0, 499) + "…" : text;
  }
}
