package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sgm retrieve}: records by scope and criteria, as a table on a terminal or JSON. */
@Command(
    name = "retrieve",
    mixinStandardHelpOptions = true,
    description = "Retrieve records by scope and criteria; a table on a terminal, JSON otherwise.")
final class Retrieve implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(
      arity = "0..1",
      paramLabel = "QUERY",
      description = "The whole query as JSON or @file, instead of the options.")
  String query;

  @Option(
      names = "--scope",
      paramLabel = "KEY=VALUE",
      description = "The scope, one pair per option.")
  Map<String, String> scope = new LinkedHashMap<>();

  @Option(names = "--mode", description = "exact (default), descendants, ancestors or lineage.")
  String mode;

  @Option(names = "--type", description = "Only records of this type (repeatable).")
  List<String> types = new ArrayList<>();

  @Option(names = "--tag", description = "Only records with this tag (repeatable; all must match).")
  List<String> tags = new ArrayList<>();

  @Option(names = "--any-tag", description = "Records with any of the tags, not all.")
  boolean anyTag;

  @Option(names = "--text", description = "Full-text search, ranked.")
  String text;

  @Option(
      names = "--filter",
      paramLabel = "PATH=JSON",
      description = "Equality on data.* or metadata.*, e.g. data.state='\"open\"' (repeatable).")
  Map<String, String> filter = new LinkedHashMap<>();

  @Option(names = "--limit", description = "Page size (default 50).")
  Integer limit;

  @Option(names = "--cursor", description = "The next_cursor of the previous page.")
  String cursor;

  @Option(names = "--json", description = "Print JSON even on a terminal.")
  boolean json;

  @Override
  public Integer call() {
    ObjectNode request;
    if (query != null) {
      JsonNode parsed = JsonIo.read(query, "query");
      if (!parsed.isObject()) {
        throw SgmException.invalidRequest("query", "must be a JSON object");
      }
      request = (ObjectNode) parsed;
    } else {
      request = Json.object();
      request.set("scope", JsonIo.scope(scope, "--scope"));
      if (mode != null) {
        request.put("scope_mode", mode);
      }
      types.forEach(t -> request.withArray("types").add(t));
      tags.forEach(t -> request.withArray("tags").add(t));
      if (anyTag) {
        request.put("tags_mode", "any");
      }
      if (text != null) {
        request.put("text", text);
      }
      filter.forEach(
          (path, value) -> {
            JsonNode parsed;
            try {
              parsed = Json.parse(value);
            } catch (SgmException e) {
              parsed = Json.object().textNode(value);
            }
            request.withObject("filter").set(path, parsed);
          });
      if (limit != null) {
        request.put("limit", limit);
      }
      if (cursor != null) {
        request.put("cursor", cursor);
      }
    }
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
