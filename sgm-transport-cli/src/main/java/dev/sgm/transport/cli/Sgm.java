package dev.sgm.transport.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.CoreOperations;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The {@code sgm} command. Operations run on the embedded store by default ({@code --data}, {@code
 * --memory}) or on a server ({@code --remote URL}); JSON goes in (argument, {@code @file} or
 * standard input) and out. Exit codes: 0 ok, 2 invalid input, 3 not found, 4 conflict, 5
 * unavailable, 6 unsupported, 7 too large, 8 denied, 1 anything else.
 */
@Command(
    name = "sgm",
    mixinStandardHelpOptions = true,
    versionProvider = Sgm.Version.class,
    description = "Shared, scoped memory for AI agents and developer tools.",
    subcommands = {
      Serve.class,
      Sgm.Discover.class,
      Sgm.Store.class,
      Sgm.StoreBatch.class,
      Sgm.Read.class,
      Sgm.Retrieve.class,
      Sgm.Delete.class,
      Sgm.PutContent.class,
      Sgm.Call.class,
      Remember.class,
      Recall.class,
      Watch.class,
      Code.class,
      Transfer.Export.class,
      Transfer.Import.class,
      Reindex.class,
      Migrate.class,
      Token.class,
      Tck.class,
      Mcp.class,
      Sgm.Completion.class
    })
public final class Sgm implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
      System.setProperty("java.util.logging.SimpleFormatter.format", "%4$s %3$s: %5$s%6$s%n");
    }
    String[] normalised = normalise(args);
    Connection.serving =
        normalised.length > 0 && (normalised[0].equals("serve") || normalised[0].equals("mcp"));
    if (normalised.length == 0 || !normalised[0].equals("serve")) {
      // Commands print their results; start-up notes would only get in the way of a pipe.
      java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
    }
    int code = run(args);
    if (code != Serve.SERVED) {
      System.exit(code);
    }
  }

  /** Runs the command line and returns the exit code. */
  static int run(String... args) {
    CommandLine commandLine = commandLine();
    return commandLine.execute(normalise(args));
  }

  static CommandLine commandLine() {
    CommandLine commandLine = new CommandLine(new Sgm());
    // @file means a JSON file to the commands, not picocli's file of arguments.
    commandLine.setExpandAtFiles(false);
    commandLine.setExecutionExceptionHandler(
        (e, cmd, parseResult) -> {
          if (e instanceof SgmException error) {
            cmd.getErr().println("sgm: " + error.code().wireName() + ": " + error.getMessage());
            return ExitCodes.of(error.code());
          }
          cmd.getErr().println("sgm: " + e.getClass().getSimpleName() + ": " + e.getMessage());
          return ExitCodes.FAILED;
        });
    commandLine.setParameterExceptionHandler(
        (e, args) -> {
          CommandLine cmd = e.getCommandLine();
          cmd.getErr()
              .println(
                  "sgm: "
                      + e.getMessage()
                      + " (see: "
                      + cmd.getCommandSpec().qualifiedName()
                      + " --help)");
          return ExitCodes.INVALID;
        });
    return commandLine;
  }

  /**
   * Lets the shared options come before the command ({@code sgm --memory discover}) and makes
   * {@code sgm history.versions ...} mean {@code sgm call history.versions ...}.
   */
  static String[] normalise(String[] args) {
    List<String> leading = new ArrayList<>();
    int i = 0;
    while (i < args.length
        && args[i].startsWith("-")
        && !args[i].equals("--help")
        && !args[i].equals("-h")
        && !args[i].equals("--version")
        && !args[i].equals("-V")) {
      leading.add(args[i]);
      if (takesValue(args[i]) && i + 1 < args.length) {
        leading.add(args[++i]);
      }
      i++;
    }
    if (i >= args.length || leading.isEmpty() && !isOperation(args[i])) {
      return args;
    }
    List<String> result = new ArrayList<>();
    if (isOperation(args[i])) {
      result.add("call");
    }
    result.add(args[i]);
    if (args[i].equals("code") && i + 1 < args.length && !args[i + 1].startsWith("-")) {
      result.add(args[++i]); // the shared options belong to the subcommand
    }
    result.addAll(leading);
    result.addAll(List.of(args).subList(i + 1, args.length));
    return result.toArray(String[]::new);
  }

  private static boolean isOperation(String word) {
    return word.contains(".") && !word.startsWith("@") && !word.contains("/");
  }

  /**
   * The options before a command that take a value; bin/sgm repeats this list to find the command.
   */
  private static boolean takesValue(String option) {
    return List.of("--data", "--remote", "--token", "--config", "-D", "--agent").contains(option);
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return ExitCodes.INVALID;
  }

  /** The version from the core's build. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      var descriptor = Sgm.class.getModule().getDescriptor();
      String version = descriptor == null ? null : descriptor.rawVersion().orElse(null);
      return new String[] {"sgm " + (version == null ? "(development build)" : version)};
    }
  }

  /** Where operations go and how the engine is configured; shared by every command. */
  static final class Connection {
    /** Whether this process serves until stopped ({@code serve}, {@code mcp}), set by main. */
    static volatile boolean serving;

    @Option(
        names = "--data",
        paramLabel = "DIR",
        description = "Keep data in DIR (default: $XDG_DATA_HOME/sgm or ~/.local/share/sgm).")
    Path data;

    @Option(names = "--memory", description = "Keep nothing: an in-memory store for this run.")
    boolean memory;

    @Option(
        names = "--remote",
        paramLabel = "URL",
        description =
            "Run on the server at URL instead of the embedded store: http://host:port,"
                + " grpc://host:port or mcp+http://host:port/mcp.")
    String remote;

    @Option(
        names = "--token",
        paramLabel = "TOKEN",
        description = "The bearer token to present with --remote (default: $SGM_TOKEN).")
    String token;

    @Option(
        names = "--config",
        paramLabel = "FILE",
        description = "A properties file of configuration.")
    Path config;

    @Option(
        names = "-D",
        paramLabel = "KEY=VALUE",
        description = "A configuration value, e.g. -D profiles.disabled=history.")
    Map<String, String> settings = new LinkedHashMap<>();

    Config config() {
      Map<String, String> options = new HashMap<>(settings);
      if (data != null) {
        options.put(ConfigLoader.DATA_DIR, data.toString());
      }
      if (memory) {
        options.put(ConfigLoader.STORAGE_MEMORY, "true");
      }
      if (config != null) {
        options.put("config.file", config.toString());
      }
      if (!serving) {
        // A short command leaves embedding to the next server: loading the model costs more than
        // the command itself.
        options.putIfAbsent(ConfigLoader.EMBED_IN_BACKGROUND, "false");
      }
      return ConfigLoader.load(options);
    }

    Backend open() {
      if (remote == null) {
        return Backend.embedded(config());
      }
      String presented = token != null ? token : System.getenv("SGM_TOKEN");
      return Backend.remote(remote, presented == null || presented.isBlank() ? null : presented);
    }
  }

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
  static JsonNode readJson(String argument, String what) {
    String text;
    try {
      if (argument == null || argument.equals("-")) {
        if (argument == null && System.console() != null) {
          throw SgmException.invalidRequest(
              what, "give it as an argument, @file, or on standard input");
        }
        text = new String(readAll(System.in), StandardCharsets.UTF_8);
      } else if (argument.startsWith("@")) {
        text = Files.readString(Path.of(argument.substring(1)), StandardCharsets.UTF_8);
      } else {
        text = argument;
      }
    } catch (IOException e) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST, what + ": cannot be read: " + e.getMessage());
    }
    try {
      return Json.parse(text);
    } catch (SgmException e) {
      throw SgmException.invalidRequest(what, e.getMessage().replaceFirst("^body: ", ""));
    }
  }

  private static byte[] readAll(InputStream in) throws IOException {
    return in.readAllBytes();
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

  /** The options that name one record: {@code --scope k=v ... --id ID}. */
  static final class RecordAddress {
    @Option(
        names = "--scope",
        paramLabel = "KEY=VALUE",
        description = "The record's scope, one pair per option.")
    Map<String, String> scope = new LinkedHashMap<>();

    @Option(names = "--id", required = true, description = "The record's id.")
    String id;

    ObjectNode toJson() {
      ObjectNode request = Json.object();
      request.set("scope", Sgm.scope(scope, "--scope"));
      request.put("id", id);
      return request;
    }
  }

  /** A command that runs one operation with a JSON request and prints the response. */
  abstract static class OperationCommand implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;

    abstract String operation();

    abstract JsonNode request();

    @Override
    public Integer call() {
      JsonNode request = request();
      try (Backend backend = connection.open()) {
        print(spec, backend.call(operation(), request));
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "discover",
      mixinStandardHelpOptions = true,
      description = "Print the discovery document.")
  static final class Discover extends OperationCommand {
    @Option(
        names = "--accept",
        paramLabel = "VERSION",
        description = "A protocol version this client accepts.")
    List<String> accept = new ArrayList<>();

    @Override
    String operation() {
      return CoreOperations.DISCOVER;
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

  @Command(
      name = "store",
      mixinStandardHelpOptions = true,
      description = "Store (create or replace) one record.")
  static final class Store extends OperationCommand {
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
      return CoreOperations.STORE;
    }

    @Override
    JsonNode request() {
      ObjectNode request = Json.object();
      request.set("record", markOrigin(readJson(record, "record")));
      if (expectedVersion != null) {
        request.put("expected_version", expectedVersion);
      }
      if (ifAbsent) {
        request.put("if_absent", true);
      }
      return request;
    }
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

  @Command(
      name = "store-batch",
      mixinStandardHelpOptions = true,
      description = "Store up to 1000 records atomically: a JSON array, or JSON Lines.")
  static final class StoreBatch extends OperationCommand {
    @Parameters(
        arity = "0..1",
        paramLabel = "RECORDS",
        description = "A JSON array of records, @file, or - (standard input).")
    String records;

    @Override
    String operation() {
      return CoreOperations.STORE_BATCH;
    }

    @Override
    JsonNode request() {
      JsonNode json = readJson(records, "records");
      ArrayNode array;
      if (json.isArray()) {
        array = (ArrayNode) json;
      } else if (json.has("records")) {
        array = (ArrayNode) json.get("records");
      } else {
        throw SgmException.invalidRequest("records", "must be a JSON array of records");
      }
      array.forEach(Sgm::markOrigin);
      ObjectNode request = Json.object();
      request.set("records", array);
      return request;
    }
  }

  @Command(
      name = "read",
      mixinStandardHelpOptions = true,
      description = "Read one record by scope and id.")
  static final class Read extends OperationCommand {
    @Mixin RecordAddress address;

    @Option(names = "--resolve", description = "Include referenced content.")
    boolean resolve;

    @Override
    String operation() {
      return CoreOperations.READ;
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

  @Command(
      name = "retrieve",
      mixinStandardHelpOptions = true,
      description =
          "Retrieve records by scope and criteria; a table on a terminal, JSON otherwise.")
  static final class Retrieve implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;

    @Parameters(
        arity = "0..1",
        paramLabel = "QUERY",
        description = "The whole query as JSON or @file, instead of the options.")
    String query;

    @Option(
        names = "--scope",
        paramLabel = "KEY=VALUE",
        description = "The scope, one pair per option.")
    Map<String, String> scope = new LinkedHashMap<>();

    @Option(names = "--mode", description = "exact (default), descendants, ancestors or lineage.")
    String mode;

    @Option(names = "--type", description = "Only records of this type (repeatable).")
    List<String> types = new ArrayList<>();

    @Option(
        names = "--tag",
        description = "Only records with this tag (repeatable; all must match).")
    List<String> tags = new ArrayList<>();

    @Option(names = "--any-tag", description = "Records with any of the tags, not all.")
    boolean anyTag;

    @Option(names = "--text", description = "Full-text search, ranked.")
    String text;

    @Option(
        names = "--filter",
        paramLabel = "PATH=JSON",
        description = "Equality on data.* or metadata.*, e.g. data.state='\"open\"' (repeatable).")
    Map<String, String> filter = new LinkedHashMap<>();

    @Option(names = "--limit", description = "Page size (default 50).")
    Integer limit;

    @Option(names = "--cursor", description = "The next_cursor of the previous page.")
    String cursor;

    @Option(names = "--json", description = "Print JSON even on a terminal.")
    boolean json;

    @Override
    public Integer call() {
      ObjectNode request;
      if (query != null) {
        JsonNode parsed = readJson(query, "query");
        if (!parsed.isObject()) {
          throw SgmException.invalidRequest("query", "must be a JSON object");
        }
        request = (ObjectNode) parsed;
      } else {
        request = Json.object();
        request.set("scope", Sgm.scope(scope, "--scope"));
        if (mode != null) {
          request.put("scope_mode", mode);
        }
        types.forEach(t -> request.withArray("types").add(t));
        tags.forEach(t -> request.withArray("tags").add(t));
        if (anyTag) {
          request.put("tags_mode", "any");
        }
        if (text != null) {
          request.put("text", text);
        }
        filter.forEach(
            (path, value) -> {
              JsonNode parsed;
              try {
                parsed = Json.parse(value);
              } catch (SgmException e) {
                parsed = Json.object().textNode(value);
              }
              request.withObject("filter").set(path, parsed);
            });
        if (limit != null) {
          request.put("limit", limit);
        }
        if (cursor != null) {
          request.put("cursor", cursor);
        }
      }
      JsonNode result;
      try (Backend backend = connection.open()) {
        result = backend.call(CoreOperations.RETRIEVE, request);
      }
      if (json || System.console() == null) {
        print(spec, result);
      } else {
        Table.print(spec.commandLine().getOut(), result);
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "delete",
      mixinStandardHelpOptions = true,
      description = "Delete one record (soft when history is on).")
  static final class Delete extends OperationCommand {
    @Mixin RecordAddress address;

    @Option(
        names = "--expected-version",
        paramLabel = "N",
        description = "Fail with a conflict unless the stored version is N.")
    Long expectedVersion;

    @Override
    String operation() {
      return CoreOperations.DELETE;
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

  @Command(
      name = "put-content",
      mixinStandardHelpOptions = true,
      description = "Keep content by its SHA-256 hash and print the reference to put in a record.")
  static final class PutContent extends OperationCommand {
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
      return CoreOperations.PUT_CONTENT;
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
          throw SgmException.invalidRequest("--file", "cannot be read: " + e.getMessage());
        }
      } else if (text != null) {
        request.put("content", text);
      } else {
        throw SgmException.invalidRequest("content", "give TEXT or --file");
      }
      return request;
    }
  }

  @Command(
      name = "call",
      mixinStandardHelpOptions = true,
      description = {
        "Run any operation by its wire name, e.g. history.versions; also written as sgm OPERATION.",
        "Without an operation, list those the store or server offers, as its discovery describes"
            + " them."
      })
  static final class Call extends OperationCommand {
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
              "%-22s %-14s %s%n",
              described.name(), described.capability(), described.description());
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
      return request == null ? Json.object() : readJson(request, "request");
    }
  }

  @Command(
      name = "completion",
      mixinStandardHelpOptions = true,
      description = "Print a bash/zsh completion script: source <(sgm completion).")
  static final class Completion implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      spec.commandLine().getOut().print(AutoComplete.bash("sgm", spec.parent().commandLine()));
      spec.commandLine().getOut().flush();
      return ExitCodes.OK;
    }
  }
}
