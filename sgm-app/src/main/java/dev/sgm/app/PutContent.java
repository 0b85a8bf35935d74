package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sgm put-content}: keeps content by its hash and prints the reference. */
@Command(
    name = "put-content",
    mixinStandardHelpOptions = true,
    description = "Keep content by its SHA-256 hash and print the reference to put in a record.")
final class PutContent extends OperationCommand {
  @Option(
      names = "--file",
      paramLabel = "FILE",
      description = "The content's file (kept as bytes).")
  Path file;

  @Parameters(
      arity = "0..1",
      paramLabel = "TEXT",
      description = "The content as text (when no --file).")
  String text;

  @Override
  String operation() {
    return Operations.PUT_CONTENT;
  }

  @Override
  JsonNode request() {
    ObjectNode request = Json.object();
    if (file != null) {
      try {
        request.put(
            "content_base64",
            java.util.Base64.getEncoder().encodeToString(Files.readAllBytes(file)));
      } catch (IOException e) {
        throw SgmException.invalidRequest("--file", JsonIo.unreadable(e));
      }
    } else if (text != null) {
      request.put("content", text);
    } else {
      throw SgmException.invalidRequest("content", "give TEXT or --file");
    }
    return request;
  }
}
