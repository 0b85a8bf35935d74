package dev.sgm.app;

import dev.sgm.api.NearestNames;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.core.HostCapabilities;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

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
    description = "Shared, scoped memory for AI agents and developer tools.")
public final class Sgm implements Callable<Integer> {
  /**
   * The built-in commands. Built only as needed: picocli's model of all of them costs more than a
   * short command beside a holder takes to run, so a command line gets the one its word names (all
   * of them for help, completion or a word that is none of theirs).
   */
  static final List<Class<?>> COMMANDS =
      List.of(
          Serve.class,
          Discover.class,
          Store.class,
          StoreBatch.class,
          Read.class,
          Retrieve.class,
          Delete.class,
          PutContent.class,
          Call.class,
          Remember.class,
          Recall.class,
          Context.class,
          Hooks.class,
          Watch.class,
          Transfer.Export.class,
          Transfer.Import.class,
          Reindex.class,
          Migrate.class,
          Token.class,
          Secrets.class,
          Tck.class,
          Mcp.class,
          Completion.class);

  // The options every command shares. Inherited, so they may come before the command (sgm --data
  // DIR store) or after it (sgm store --data DIR); either way picocli sets these fields, which
  // commands read through their Connection.

  @Option(
      names = "--data",
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      description = "Keep data in DIR (default: $XDG_DATA_HOME/sgm or ~/.local/share/sgm).")
  Path data;

  @Option(
      names = "--memory",
      scope = ScopeType.INHERIT,
      description = "Keep nothing: an in-memory store for this run.")
  boolean memory;

  @Option(
      names = "--remote",
      scope = ScopeType.INHERIT,
      paramLabel = "URL",
      description =
          "Run on the server at URL instead of the embedded store: http://host:port,"
              + " grpc://host:port or mcp+http://host:port/mcp.")
  String remote;

  @Option(
      names = "--token",
      scope = ScopeType.INHERIT,
      paramLabel = "TOKEN",
      description = "The bearer token to present with --remote (default: $SGM_TOKEN).")
  String token;

  @Option(
      names = "--config",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description = "A properties file of configuration.")
  Path config;

  @Option(
      names = "-D",
      scope = ScopeType.INHERIT,
      paramLabel = "KEY=VALUE",
      description = "A configuration value, e.g. -D profiles.disabled=history.")
  Map<String, String> settings = new LinkedHashMap<>();

  @CommandLine.Spec CommandSpec spec;

  /**
   * The web server's own start and stop lines (its version, build and connectors) say nothing a
   * user acts on; its warnings still show. Held here: a logger nobody references loses its level.
   */
  private static final java.util.logging.Logger JETTY =
      java.util.logging.Logger.getLogger("org.eclipse.jetty");

  public static void main(String[] args) {
    if (System.getProperty("java.util.logging.SimpleFormatter.format") == null) {
      System.setProperty("java.util.logging.SimpleFormatter.format", "%4$s %3$s: %5$s%6$s%n");
    }
    JETTY.setLevel(java.util.logging.Level.WARNING);
    CommandLine commandLine = commandLine(args);
    CommandLine.IExecutionStrategy run = commandLine.getExecutionStrategy();
    commandLine.setExecutionStrategy(
        parsed -> {
          if (!(parsed.hasSubcommand()
              && parsed.subcommand().commandSpec().userObject() instanceof Serve)) {
            // Commands print their results; start-up notes would only get in the way of a pipe.
            java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.WARNING);
          }
          return run.execute(parsed);
        });
    int code = execute(commandLine, args);
    if (code != Serve.SERVED) {
      System.exit(code);
    }
  }

  /** What this program adds to discovery's capabilities: it is the command-line transport. */
  static final HostCapabilities CAPABILITIES = new HostCapabilities(List.of("cli"));

  /** Opens the engine on {@code config} as this program hosts it. */
  static SgmRuntime openRuntime(Config config) {
    return SgmRuntime.open(config, Clock.systemUTC(), CAPABILITIES);
  }

  /** Runs the command line and returns the exit code. */
  static int run(String... args) {
    return execute(commandLine(args), args);
  }

  /** Runs the arguments on a command line made by {@link #commandLine()}. */
  static int execute(CommandLine commandLine, String... args) {
    if (needsPluginCommands(commandLine, args)) {
      try {
        PluginCommands.addTo(commandLine);
        // Settings reach the subcommands there were when they were set; these came after.
        commandLine.setOut(commandLine.getOut());
        commandLine.setErr(commandLine.getErr());
      } catch (RuntimeException e) {
        commandLine.getErr().println("sgm: " + e.getMessage());
        return ExitCodes.FAILED;
      }
    }
    return commandLine.execute(callOperation(commandLine.getCommandSpec(), args));
  }

  /**
   * Whether the command may be one a plugin adds, or lists them (help, completion): only then are
   * the plugins' commands built, so that {@code sgm mcp} beside a holder reads no plugin's jar.
   */
  private static boolean needsPluginCommands(CommandLine root, String[] args) {
    int word = commandWord(root.getCommandSpec(), args);
    if (word < 0 || word >= args.length) {
      return true;
    }
    String name = args[word];
    return !isOperation(name)
        && (!root.getSubcommands().containsKey(name) || name.equals("completion"));
  }

  /** A command line with every built-in command. */
  static CommandLine commandLine() {
    return commandLine(new String[0]);
  }

  /** A command line for {@code args}: with the built-in command they name, or all of them. */
  static CommandLine commandLine(String... args) {
    CommandLine commandLine = new CommandLine(new Sgm());
    Class<?> named = named(commandLine.getCommandSpec(), args);
    if (named != null) {
      commandLine.addSubcommand(named);
    } else {
      COMMANDS.forEach(commandLine::addSubcommand);
    }
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
        (e, ignored) -> {
          CommandLine cmd = e.getCommandLine();
          cmd.getErr()
              .println(
                  "sgm: "
                      + parameterProblem(e)
                      + " (see: "
                      + cmd.getCommandSpec().qualifiedName()
                      + " --help)");
          return ExitCodes.INVALID;
        });
    return commandLine;
  }

  /**
   * What is wrong with the command line, in words: an unknown command with the nearest names, and
   * picocli's own message otherwise, without its doubled words.
   */
  static String parameterProblem(CommandLine.ParameterException e) {
    if (e instanceof CommandLine.UnmatchedArgumentException unmatched
        && unmatched.getCommandLine().getParent() == null
        && !unmatched.getUnmatched().isEmpty()
        && !unmatched.getUnmatched().get(0).startsWith("-")) {
      String word = unmatched.getUnmatched().get(0);
      List<String> near =
          NearestNames.of(word, unmatched.getCommandLine().getSubcommands().keySet());
      return "unknown command '"
          + word
          + "'"
          + (near.isEmpty() ? "" : "; did you mean " + String.join(" or ", near) + "?");
    }
    return e.getMessage().replace("option option '", "option '");
  }

  /**
   * The built-in command {@code args} name ({@code call} for an operation's name), or null when
   * they name none of them, or ask for help or completion, which list them all.
   */
  private static Class<?> named(CommandSpec root, String[] args) {
    int i = commandWord(root, args);
    if (i < 0 || i >= args.length) {
      return null;
    }
    String word = isOperation(args[i]) ? "call" : args[i];
    if (word.equals("completion") || word.equals("help")) {
      return null;
    }
    for (Class<?> command : COMMANDS) {
      if (command.getAnnotation(Command.class).name().equals(word)) {
        return command;
      }
    }
    return null;
  }

  /**
   * Makes {@code sgm history.versions ...} mean {@code sgm call history.versions ...}: operations
   * come from the plugins present, so they cannot be subcommands. The command's word is the first
   * argument that is neither one of the shared options (read from the root command, {@code root})
   * nor the value of one.
   */
  static String[] callOperation(CommandSpec root, String[] args) {
    int i = commandWord(root, args);
    if (i < 0 || i >= args.length || !isOperation(args[i])) {
      return args;
    }
    List<String> result = new ArrayList<>(List.of(args).subList(0, i));
    result.add("call");
    result.addAll(List.of(args).subList(i, args.length));
    return result.toArray(String[]::new);
  }

  /**
   * The index of the command's word: the first argument that is neither a shared option nor the
   * value of one; {@code args.length} when there is none, -1 when an option that is not a shared
   * one comes first (picocli reports it, or it is a subcommand's option after the word).
   */
  private static int commandWord(CommandSpec root, String[] args) {
    int i = 0;
    while (i < args.length && args[i].startsWith("-")) {
      OptionSpec option = root.findOption(optionName(args[i]));
      if (option == null) {
        return -1;
      }
      boolean valueAttached = !optionName(args[i]).equals(args[i]);
      i += option.arity().max() > 0 && !valueAttached ? 2 : 1;
    }
    return i;
  }

  /** The option's name in {@code --data=DIR} or {@code -Dkey=value} as well as {@code --data}. */
  private static String optionName(String arg) {
    if (arg.startsWith("--")) {
      int equals = arg.indexOf('=');
      return equals < 0 ? arg : arg.substring(0, equals);
    }
    return arg.length() > 2 ? arg.substring(0, 2) : arg;
  }

  private static boolean isOperation(String word) {
    return word.contains(".") && !word.startsWith("@") && !word.contains("/");
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
}
