package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Operations;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code sgm read --scope ... --id ID}: reads one record. */
@Command(
    name = "read",
    mixinStandardHelpOptions = true,
    description = "Read one record by scope and id.")
final class Read extends OperationCommand {
  @Mixin RecordAddress address;

  @Option(names = "--resolve", description = "Include referenced content.")
  boolean resolve;

  @Override
  String operation() {
    return Operations.READ;
  }

  @Override
  JsonNode request() {
    ObjectNode request = address.toJson();
    if (resolve) {
      request.put("resolve", true);
    }
    return request;
  }
}
