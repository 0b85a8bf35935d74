package dev.sgm.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/** The options that name one record: {@code --scope k=v ... --id ID}. */
final class RecordAddress {
  @Option(
      names = "--scope",
      paramLabel = "KEY=VALUE",
      description = "The record's scope, one pair per option.")
  Map<String, String> scope = new LinkedHashMap<>();

  @Option(names = "--id", required = true, description = "The record's id.")
  String id;

  ObjectNode toJson() {
    ObjectNode request = Json.object();
    request.set("scope", JsonIo.scope(scope, "--scope"));
    request.put("id", id);
    return request;
  }
}
