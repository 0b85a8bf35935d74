package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/** A command that runs one operation with a JSON request and prints the response. */
abstract class OperationCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  abstract String operation();

  abstract JsonNode request();

  @Override
  public Integer call() {
    JsonNode request = request();
    try (Backend backend = connection.open()) {
      JsonIo.print(spec, backend.call(operation(), request));
    }
    return ExitCodes.OK;
  }
}
