package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BriefBudget;
import dev.sgm.api.Json;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The brief for a session ({@code context.brief}) over MCP: the prompt {@code sgm_context}, with
 * {@code budget}, {@code query} and {@code project} arguments, and the resources {@code
 * sgm://context/{project}}, as markdown. Offered when the server has the operation (the
 * collaboration profile); the session's defaults fill in the project and the agent.
 */
final class McpBriefs {
  static final String PROMPT = "sgm_context";
  static final String URI_PREFIX = "sgm://context/";

  private final SgmClient backend;
  private final boolean offered;

  McpBriefs(SgmClient backend, List<OperationDescriptor> operations) {
    this.backend = backend;
    this.offered = operations.stream().anyMatch(op -> op.name().equals(Operations.CONTEXT_BRIEF));
  }

  /** The answer to {@code prompts/list}. */
  ObjectNode prompts() {
    ObjectNode result = Json.object();
    ArrayNode prompts = result.putArray("prompts");
    if (offered) {
      ObjectNode prompt = prompts.addObject();
      prompt.put("name", PROMPT);
      prompt.put("title", "Brief from shared memory");
      prompt.put(
          "description",
          "What to know before starting work in a project: open handoffs, rules in force,"
              + " accepted decisions, tasks, each agent's latest status, then related records;"
              + " quoted and attributed, within a budget of tokens.");
      ArrayNode arguments = prompt.putArray("arguments");
      argument(
          arguments,
          "budget",
          "The most tokens it takes, "
              + BriefBudget.MIN
              + " to "
              + BriefBudget.MAX
              + " (default "
              + BriefBudget.DEFAULT
              + ").");
      argument(arguments, "query", "What the related records are about.");
      argument(arguments, "project", "The project (default: the session's).");
    }
    return result;
  }

  private static void argument(ArrayNode arguments, String name, String description) {
    arguments.addObject().put("name", name).put("description", description).put("required", false);
  }

  boolean isPrompt(String name) {
    return offered && PROMPT.equals(name);
  }

  /** The answer to {@code prompts/get} of {@link #PROMPT}: the brief as one user message. */
  ObjectNode prompt(JsonNode params, McpDefaults defaults) {
    JsonNode arguments = params.path("arguments");
    ObjectNode request = Json.object();
    ObjectNode scope = scope(arguments.path("project").asText(null), defaults);
    request.set("scope", scope);
    if (defaults.agent() != null) {
      request.put("agent", defaults.agent());
    }
    String budget = arguments.path("budget").asText(null);
    if (budget != null && !budget.isBlank()) {
      try {
        request.put("budget", Integer.parseInt(budget.strip()));
      } catch (NumberFormatException e) {
        throw SgmException.invalidRequest(
            "budget",
            "'"
                + budget
                + "' is not a whole number of tokens from "
                + BriefBudget.MIN
                + " to "
                + BriefBudget.MAX);
      }
    }
    String query = arguments.path("query").asText(null);
    if (query != null && !query.isBlank()) {
      request.put("query", query);
    }
    JsonNode brief = backend.call(Operations.CONTEXT_BRIEF, request);
    ObjectNode result = Json.object();
    result.put("description", "Brief of " + scope.path("project").asText() + " from shared memory");
    ObjectNode message = result.putArray("messages").addObject();
    message.put("role", "user");
    message.putObject("content").put("type", "text").put("text", brief.path("text").asText());
    return result;
  }

  private static ObjectNode scope(String project, McpDefaults defaults) {
    if (project != null && !project.isBlank()) {
      return Json.object().put("project", project);
    }
    if (defaults.scope() == null || !defaults.scope().has("project")) {
      throw SgmException.invalidRequest(
          "project", "is required: this session has no default project");
    }
    return defaults.scope().deepCopy();
  }

  /** Adds the template of the brief's resources to {@code resources/templates/list}'s answer. */
  void addTemplate(ArrayNode templates) {
    if (offered) {
      ObjectNode template = templates.addObject();
      template.put("uriTemplate", URI_PREFIX + "{project}");
      template.put("name", "context");
      template.put(
          "description", "The brief for a session in a project, as sgm context writes it.");
      template.put("mimeType", "text/markdown");
    }
  }

  /** Adds the brief of the session's project to the first page of {@code resources/list}. */
  void addResource(ArrayNode resources, McpDefaults defaults) {
    if (offered && defaults.scope() != null && defaults.scope().has("project")) {
      String project = defaults.scope().path("project").asText();
      ObjectNode resource = resources.addObject();
      resource.put("uri", URI_PREFIX + URLEncoder.encode(project, StandardCharsets.UTF_8));
      resource.put("name", "context");
      resource.put("title", "Brief of " + project);
      resource.put("mimeType", "text/markdown");
    }
  }

  boolean isResource(String uri) {
    return offered && uri.startsWith(URI_PREFIX);
  }

  /** The answer to {@code resources/read} of a brief's URI. */
  ObjectNode read(String uri, McpDefaults defaults) {
    String project;
    try {
      project = URLDecoder.decode(uri.substring(URI_PREFIX.length()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw SgmException.invalidRequest("uri", "'" + uri + "' is not percent-encoded correctly");
    }
    if (project.isBlank() || project.contains("/")) {
      throw SgmException.invalidRequest(
          "uri", "'" + uri + "' is not an sgm://context/{project} URI");
    }
    ObjectNode request = Json.object();
    request.putObject("scope").put("project", project);
    if (defaults.agent() != null) {
      request.put("agent", defaults.agent());
    }
    JsonNode brief = backend.call(Operations.CONTEXT_BRIEF, request);
    ObjectNode result = Json.object();
    ObjectNode content = result.putArray("contents").addObject();
    content.put("uri", uri);
    content.put("mimeType", "text/markdown");
    content.put("text", brief.path("text").asText());
    return result;
  }
}
