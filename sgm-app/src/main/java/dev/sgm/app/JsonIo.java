package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import picocli.CommandLine;

/** JSON in and out of the commands: arguments, {@code @file}, standard input, and results. */
final class JsonIo {
  private JsonIo() {}

  /** Output: pretty JSON on a terminal, compact when piped. */
  static void print(CommandLine.Model.CommandSpec spec, JsonNode json) {
    PrintWriter out = spec.commandLine().getOut();
    out.println(System.console() != null ? Json.writePretty(json) : Json.write(json));
    out.flush();
  }

  /**
   * Reads JSON from an argument: the JSON itself, {@code @file}, or {@code -}/absent for standard
   * input.
   */
  static JsonNode read(String argument, String what) {
    String text;
    try {
      if (argument == null || argument.equals("-")) {
        if (argument == null && System.console() != null) {
          throw SgmException.invalidRequest(
              what, "give it as an argument, @file, or on standard input");
        }
        text = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
      } else if (argument.startsWith("@")) {
        text = Files.readString(Path.of(argument.substring(1)), StandardCharsets.UTF_8);
      } else {
        text = argument;
      }
    } catch (IOException e) {
      throw new SgmException(ErrorCode.INVALID_REQUEST, what + ": " + unreadable(e));
    }
    try {
      return Json.parse(text);
    } catch (SgmException e) {
      throw SgmException.invalidRequest(what, e.getMessage().replaceFirst("^body: ", ""));
    }
  }

  /** Scope options as a JSON object: {@code --scope project=alpha --scope session=s1}. */
  static ObjectNode scope(Map<String, String> pairs, String option) {
    if (pairs == null || pairs.isEmpty()) {
      throw SgmException.invalidRequest(
          option, "is required, e.g. " + option + " project=myproject");
    }
    ObjectNode scope = Json.object();
    pairs.forEach(scope::put);
    return scope;
  }

  /** Why a file named on the command line could not be read, in the words a person expects. */
  static String unreadable(IOException e) {
    if (e instanceof java.nio.file.NoSuchFileException missing) {
      return "no such file: " + missing.getFile();
    }
    if (e instanceof java.nio.file.AccessDeniedException denied) {
      return "permission denied: " + denied.getFile();
    }
    return "cannot be read: " + e.getMessage();
  }
}
