package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sgm recall "question"}: the counterpart of {@code remember}, asking the memory in plain
 * words; the best matches first.
 */
@Command(
    name = "recall",
    mixinStandardHelpOptions = true,
    description = "Ask the memory in plain words; the records that answer best come first.")
final class Recall implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(index = "0", paramLabel = "QUESTION", description = "A question or keywords.")
  String question;

  @Option(
      names = "--project",
      description =
          "The project to ask (default: SGM_PROJECT, else the git repository's name, else the"
              + " directory's).")
  String project;

  @Option(
      names = "--scope",
      paramLabel = "KEY=VALUE",
      description = "More scope pairs, e.g. --scope session=s1.")
  Map<String, String> scope = new LinkedHashMap<>();

  @Option(
      names = "--descendants",
      description = "Include the scope's sessions and other narrower scopes.")
  boolean descendants;

  @Option(names = "--mode", description = "text, semantic or hybrid (default: the server's).")
  String mode;

  @Option(
      names = "--limit",
      defaultValue = "10",
      description = "How many (default: ${DEFAULT-VALUE}).")
  int limit;

  @Option(names = "--json", description = "Print JSON even on a terminal.")
  boolean json;

  @Override
  public Integer call() {
    ObjectNode request = Json.object();
    ObjectNode scopeJson = request.putObject("scope");
    scopeJson.put("project", project != null ? project : Remember.defaultProject());
    scope.forEach(scopeJson::put);
    if (descendants) {
      request.put("scope_mode", "descendants");
    }
    request.put("text", question);
    if (mode != null) {
      request.put("mode", mode);
    }
    request.put("limit", limit);
    JsonNode result;
    try (Backend backend = connection.open()) {
      result = backend.call(Operations.RETRIEVE, request);
    }
    if (json || System.console() == null) {
      JsonIo.print(spec, result);
    } else {
      Table.print(spec.commandLine().getOut(), result);
    }
    return ExitCodes.OK;
  }
}
