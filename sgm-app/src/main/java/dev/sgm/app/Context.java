package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BriefBudget;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sgm context}: the brief for an agent starting work in a project, within a budget of
 * tokens, as markdown, JSON, or the session-start hook output of Claude Code, Codex or Cursor.
 */
@Command(
    name = "context",
    mixinStandardHelpOptions = true,
    description = {
      "Print the brief for an agent starting work: open handoffs, rules in force, accepted"
          + " decisions, tasks, each agent's latest status, then records related to --query;"
          + " quoted, attributed, and within --budget tokens (counted as one per three bytes).",
      "It never fails for want of memory: with none yet, or none answering within 2 s, the"
          + " brief says so and the exit code is 0."
    })
final class Context implements Callable<Integer> {
  /** The formats of the brief: markdown and JSON, and each agent's session-start hook output. */
  static final List<String> FORMATS = List.of("markdown", "json", "claude-code", "codex", "cursor");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  @Option(
      names = "--project",
      description =
          "The project (default: SGM_PROJECT, else the git repository's name: its origin remote's"
              + " last path segment, else its top-level directory's name; else the directory's).")
  String project;

  @Option(
      names = "--scope",
      paramLabel = "KEY=VALUE",
      description = "More scope pairs, e.g. --scope session=s1 for the session's rules too.")
  Map<String, String> scope = new LinkedHashMap<>();

  @Option(
      names = "--agent",
      description = "Who the brief is for: handoffs to it first, its tasks in progress.")
  String agent;

  @Option(
      names = "--budget",
      paramLabel = "TOKENS",
      defaultValue = "1500",
      description = "The most tokens the brief takes, from 100 (default: ${DEFAULT-VALUE}).")
  int budget;

  @Option(
      names = "--query",
      paramLabel = "TEXT",
      description = "What the related records are about (default: the branch and latest status).")
  String query;

  @Option(
      names = "--format",
      defaultValue = "markdown",
      description =
          "markdown, json, or a session-start hook's output: claude-code, codex, cursor (default:"
              + " ${DEFAULT-VALUE}).")
  String format;

  @Override
  public Integer call() {
    if (!FORMATS.contains(format)) {
      throw SgmException.invalidRequest("--format", "must be one of " + String.join(", ", FORMATS));
    }
    if (budget < BriefBudget.MIN || budget > BriefBudget.MAX) {
      throw SgmException.invalidRequest(
          "--budget",
          "must be a number of tokens from " + BriefBudget.MIN + " to " + BriefBudget.MAX);
    }
    WorkingProject here = WorkingProject.here();
    ObjectNode request = request(project, here, scope, agent, budget, query);
    print(spec.commandLine().getOut(), format, Briefing.fetch(connection, request));
    return ExitCodes.OK;
  }

  /** The request for a brief; {@code project} null means the one {@code here}. */
  static ObjectNode request(
      String project,
      WorkingProject here,
      Map<String, String> pairs,
      String agent,
      int budget,
      String query) {
    ObjectNode request = Json.object();
    ObjectNode scopeJson = request.putObject("scope");
    scopeJson.put("project", project != null ? project : here.name());
    pairs.forEach(scopeJson::put);
    if (agent != null) {
      request.put("agent", agent);
    }
    request.put("budget", budget);
    if (query != null) {
      request.put("query", query);
    }
    if (here.branch() != null) {
      request.put("branch", here.branch());
    }
    if (project == null) {
      request.put("project_source", here.source());
    }
    return request;
  }

  /** Prints the brief as {@code format} asks. */
  static void print(PrintWriter out, String format, JsonNode brief) {
    String text = brief.path("text").asText();
    switch (format) {
      case "json" -> out.println(Json.write(brief));
      case "claude-code", "codex" -> {
        ObjectNode hook = Json.object();
        hook.putObject("hookSpecificOutput")
            .put("hookEventName", "SessionStart")
            .put("additionalContext", text);
        out.println(Json.write(hook));
      }
      case "cursor" -> out.println(Json.write(Json.object().put("additional_context", text)));
      default -> out.print(text);
    }
    out.flush();
  }
}
