package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import dev.sgm.api.OperationDescriptor;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * {@code sgm call OPERATION REQUEST}: any operation by its wire name, or the list of those offered.
 */
@Command(
    name = "call",
    mixinStandardHelpOptions = true,
    description = {
      "Run any operation by its wire name, e.g. history.versions; also written as sgm OPERATION.",
      "Without an operation, list those the store or server offers, as its discovery describes"
          + " them."
    })
final class Call extends OperationCommand {
  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "OPERATION",
      description = "The operation's wire name.")
  String operation;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "REQUEST",
      description = "The request as JSON, @file, or - (default {}).")
  String request;

  @Override
  public Integer call() {
    if (operation != null) {
      return super.call();
    }
    try (Backend backend = connection.open()) {
      PrintWriter out = spec.commandLine().getOut();
      for (OperationDescriptor described : backend.describeOperations()) {
        out.printf(
            "%-22s %-14s %s%n", described.name(), described.capability(), described.description());
      }
      out.println("Run one with: sgm OPERATION '{...}' (its request schema is in sgm discover).");
      out.flush();
    }
    return ExitCodes.OK;
  }

  @Override
  String operation() {
    return operation;
  }

  @Override
  JsonNode request() {
    return request == null ? Json.object() : JsonIo.read(request, "request");
  }
}
