package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sgm remember "text"}: the everyday way to put something in memory from a shell. */
@Command(
    name = "remember",
    mixinStandardHelpOptions = true,
    description = "Store a note (or another type) with just its text; the id is generated.")
final class Remember extends OperationCommand {
  @Parameters(index = "0", paramLabel = "TEXT", description = "What to remember.")
  String text;

  @Option(
      names = "--type",
      defaultValue = "note",
      description = "The record type (default: ${DEFAULT-VALUE}).")
  String type;

  @Option(names = "--title", description = "A short title.")
  String title;

  @Option(names = "--tag", description = "A tag (repeatable).")
  List<String> tags = new ArrayList<>();

  @Option(
      names = "--project",
      description =
          "The project scope (default: SGM_PROJECT, else the git repository's name, else the"
              + " directory's).")
  String project;

  @Option(
      names = "--scope",
      paramLabel = "KEY=VALUE",
      description = "More scope pairs, e.g. --scope session=s1.")
  Map<String, String> scope = new LinkedHashMap<>();

  @Option(names = "--agent", description = "Who remembers it (default: SGM_AGENT, else $USER).")
  String agent;

  @Option(names = "--id", description = "The id (default: generated).")
  String id;

  @Override
  String operation() {
    return Operations.STORE;
  }

  @Override
  JsonNode request() {
    ObjectNode record = Json.object();
    record.put("id", id != null ? id : dev.sgm.api.MemoryRecord.newId(type));
    record.put("type", type);
    ObjectNode scopeJson = record.putObject("scope");
    scopeJson.put("project", project != null ? project : defaultProject());
    scope.forEach(scopeJson::put);
    if (title != null) {
      record.put("title", title);
    }
    record.put("content", text);
    if (!tags.isEmpty()) {
      tags.forEach(record.putArray("tags")::add);
    }
    ObjectNode provenance = record.putObject("provenance");
    provenance.put("agent", agent != null ? agent : defaultAgent());
    provenance.put("origin", "cli");
    ObjectNode request = Json.object();
    request.set("record", record);
    return request;
  }

  /**
   * The project where this runs: SGM_PROJECT, else the git repository's name, else the folder's.
   */
  static String defaultProject() {
    return WorkingProject.here().name();
  }

  static String defaultAgent() {
    for (String variable : new String[] {"SGM_AGENT", "USER", "USERNAME"}) {
      String value = System.getenv(variable);
      if (value != null && !value.isBlank()) {
        return value;
      }
    }
    return "cli";
  }
}
