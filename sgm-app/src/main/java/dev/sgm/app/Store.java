package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sgm store RECORD}: stores one record given as JSON. */
@Command(
    name = "store",
    mixinStandardHelpOptions = true,
    description = "Store (create or replace) one record.")
final class Store extends OperationCommand {
  @Parameters(
      arity = "0..1",
      paramLabel = "RECORD",
      description = "The record as JSON, @file, or - (standard input).")
  String record;

  @Option(
      names = "--expected-version",
      paramLabel = "N",
      description = "Fail with a conflict unless the stored version is N.")
  Long expectedVersion;

  @Option(names = "--if-absent", description = "Fail with a conflict if the record exists.")
  boolean ifAbsent;

  @Override
  String operation() {
    return Operations.STORE;
  }

  @Override
  JsonNode request() {
    ObjectNode request = Json.object();
    request.set("record", markOrigin(JsonIo.read(record, "record")));
    if (expectedVersion != null) {
      request.put("expected_version", expectedVersion);
    }
    if (ifAbsent) {
      request.put("if_absent", true);
    }
    return request;
  }

  /** Records written from the command line say so, also when they go to a server. */
  static JsonNode markOrigin(JsonNode record) {
    if (record.isObject() && record.path("provenance").isObject()) {
      ObjectNode provenance = (ObjectNode) record.get("provenance");
      if (!provenance.has("origin")) {
        provenance.put("origin", "cli");
      }
    }
    return record;
  }
}
