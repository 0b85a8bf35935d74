package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sgm discover}: the discovery document of the store or server. */
@Command(
    name = "discover",
    mixinStandardHelpOptions = true,
    description = "Print the discovery document.")
final class Discover extends OperationCommand {
  @Option(
      names = "--accept",
      paramLabel = "VERSION",
      description = "A protocol version this client accepts.")
  List<String> accept = new ArrayList<>();

  @Override
  String operation() {
    return Operations.DISCOVER;
  }

  @Override
  JsonNode request() {
    ObjectNode request = Json.object();
    if (!accept.isEmpty()) {
      accept.forEach(request.putArray("accept_versions")::add);
    }
    return request;
  }
}
