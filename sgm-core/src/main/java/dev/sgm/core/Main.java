package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The core's own entry point, for a runtime without the command-line plugin: a demo of the engine
 * on the embedded store, discovery, and a JSON-lines shell that runs one operation per input line.
 * The full {@code sgm} command is the {@code sgm-transport-cli} module.
 */
public final class Main {
  private static final String USAGE =
      """
      Usage: sgm [--data DIR | --memory] COMMAND

      Commands:
        demo       store, retrieve and read a few records on the embedded store, showing each step
        discover   print the discovery document
        ops        run operations from standard input, one JSON object per line:
                     {"op": "store", "request": {"record": {...}}}
                   and print one JSON response per line ({"error": {...}} on failure)

      Options:
        --data DIR   keep data in DIR (default: $XDG_DATA_HOME/sgm or ~/.local/share/sgm;
                     or SGM_DATA_DIR)
        --memory     keep nothing: an in-memory store for this run only
      """;

  private Main() {}

  public static void main(String[] args) {
    // One short line per log record on standard error, unless the user configured logging.
    if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
      System.setProperty("java.util.logging.SimpleFormatter.format", "%4$s %3$s: %5$s%6$s%n");
    }
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    Map<String, String> options = new HashMap<>();
    String command = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--data" -> {
          if (i + 1 >= args.length) {
            err.println("sgm: --data needs a directory");
            return 2;
          }
          options.put(ConfigLoader.DATA_DIR, args[++i]);
        }
        case "--memory" -> options.put(ConfigLoader.STORAGE_MEMORY, "true");
        case "-h", "--help", "help" -> {
          out.print(USAGE);
          return 0;
        }
        default -> {
          if (command != null || args[i].startsWith("-")) {
            err.println("sgm: unexpected argument '" + args[i] + "'");
            err.print(USAGE);
            return 2;
          }
          command = args[i];
        }
      }
    }
    if (command == null) {
      err.print(USAGE);
      return 2;
    }
    if (!List.of("demo", "discover", "ops").contains(command)) {
      err.println("sgm: unknown command '" + command + "'; commands: demo, discover, ops");
      return 2;
    }
    try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options))) {
      return switch (command) {
        case "demo" -> demo(sgm, out);
        case "discover" -> {
          out.println(Json.writePretty(sgm.discovery().toJson()));
          yield 0;
        }
        default -> ops(sgm, out);
      };
    } catch (SgmException e) {
      err.println("sgm: " + e.code().wireName() + ": " + e.getMessage());
      return 1;
    }
  }

  private static int demo(SgmRuntime sgm, PrintStream out) {
    out.println("SGM on " + sgm.storageDescription());
    out.println("capabilities: " + sgm.discovery().capabilities());
    String scope = "{\"project\": \"demo\"}";
    step(
        sgm,
        out,
        "store a decision",
        "store",
        "{\"record\": {\"id\": \"decision-db-choice\", \"type\": \"decision\", \"scope\": "
            + scope
            + ", \"title\": \"Keep the current datastore\", \"content\": \"Keep the datastore and add a"
            + " scheduled health-check rather than migrate.\", \"tags\": [\"database\", \"infra\"],"
            + " \"provenance\": {\"agent\": \"demo-agent\"}, \"metadata\": {\"confidence\": 0.90}}}");
    step(
        sgm,
        out,
        "store a note in a session of the project",
        "store",
        "{\"record\": {\"id\": \"note-1\", \"type\": \"note\", \"scope\": {\"project\": \"demo\","
            + " \"session\": \"s1\"}, \"content\": \"The health-check runs nightly.\", \"provenance\":"
            + " {\"agent\": \"demo-agent\"}}}");
    step(
        sgm,
        out,
        "retrieve the project's records about the datastore (exact scope: the session note stays out)",
        "retrieve",
        "{\"scope\": " + scope + ", \"text\": \"datastore\"}");
    step(
        sgm,
        out,
        "retrieve the project and its sessions",
        "retrieve",
        "{\"scope\": " + scope + ", \"scope_mode\": \"descendants\", \"limit\": 10}");
    step(
        sgm,
        out,
        "read one record by identity",
        "read",
        "{\"scope\": " + scope + ", \"id\": \"decision-db-choice\"}");
    step(
        sgm,
        out,
        "an invalid record is refused, naming the field",
        "store",
        "{\"record\": {\"id\": \"bad\", \"type\": \"note\", \"provenance\": {\"agent\": \"demo\"}}}");
    return 0;
  }

  private static void step(
      SgmRuntime sgm, PrintStream out, String title, String op, String requestJson) {
    out.println();
    out.println("== " + title);
    JsonNode request = Json.parse(requestJson);
    out.println("> " + op + " " + Json.write(request));
    out.println(Json.writePretty(invoke(sgm, op, request)));
  }

  private static JsonNode invoke(SgmRuntime sgm, String op, JsonNode request) {
    try {
      return sgm.service().invoke(Caller.anonymous("cli"), op, request);
    } catch (SgmException e) {
      return e.toJson();
    }
  }

  private static int ops(SgmRuntime sgm, PrintStream out) {
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    int failures = 0;
    try {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.isBlank()) {
          continue;
        }
        JsonNode response;
        try {
          ObjectNode call = Json.parseObject(line, "line");
          String op = call.path("op").asText("");
          response = sgm.service().invoke(Caller.anonymous("cli"), op, call.path("request"));
        } catch (SgmException e) {
          response = e.toJson();
          failures++;
        }
        out.println(Json.write(response));
        out.flush();
      }
    } catch (java.io.IOException e) {
      throw new SgmException(
          dev.sgm.api.ErrorCode.UNAVAILABLE, "standard input: " + e.getMessage());
    }
    return failures == 0 ? 0 : 1;
  }
}
