package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Operations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sgm delete --scope ... --id ID}: deletes one record. */
@Command(
    name = "delete",
    mixinStandardHelpOptions = true,
    description = "Delete one record (soft when history is on).")
final class Delete extends OperationCommand {
  @Mixin RecordAddress address;

  @Option(
      names = "--expected-version",
      paramLabel = "N",
      description = "Fail with a conflict unless the stored version is N.")
  Long expectedVersion;

  @Override
  String operation() {
    return Operations.DELETE;
  }

  @Override
  JsonNode request() {
    ObjectNode request = address.toJson();
    if (expectedVersion != null) {
      request.put("expected_version", expectedVersion);
    }
    return request;
  }
}
