package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.spi.CommandContext;
import dev.sgm.api.spi.CommandDeclaration;
import dev.sgm.api.spi.CommandInput;
import dev.sgm.api.spi.CommandProvider;
import dev.sgm.api.spi.Plugins;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * The commands plugins declare ({@link CommandProvider}), built as commands of {@code sgm} like its
 * own: the same shared options, help, error messages and exit codes.
 */
final class PluginCommands {
  private PluginCommands() {}

  /**
   * Adds every plugin's command to {@code root}. Two commands of one word, or a plugin's command
   * named like one of {@code sgm}'s own, stop the command line: which one the user meant is not
   * something to guess.
   */
  static void addTo(CommandLine root) {
    addTo(root, Plugins.load(CommandProvider.class));
  }

  /** Adds the commands of {@code providers} to {@code root}, as {@link #addTo(CommandLine)}. */
  static void addTo(CommandLine root, Iterable<CommandProvider> providers) {
    Map<String, String> owners = new HashMap<>();
    root.getSubcommands().keySet().forEach(name -> owners.put(name, "sgm"));
    for (CommandProvider provider : providers) {
      CommandDeclaration declaration = provider.command();
      String owner = provider.getClass().getName();
      String before = owners.putIfAbsent(declaration.name(), owner);
      if (before != null) {
        throw new IllegalStateException(
            "two commands are named "
                + declaration.name()
                + ": "
                + before
                + "'s and "
                + owner
                + "'s; remove one of their plugins");
      }
      root.addSubcommand(declaration.name(), build(declaration));
    }
  }

  private static CommandLine build(CommandDeclaration declaration) {
    Invocation invocation = new Invocation(declaration);
    CommandSpec spec = CommandSpec.wrapWithoutInspection(invocation);
    invocation.spec = spec;
    spec.name(declaration.name());
    spec.mixinStandardHelpOptions(true);
    spec.usageMessage().description(declaration.description().toArray(String[]::new));
    for (CommandDeclaration.Option option : declaration.options()) {
      spec.addOption(option(option));
    }
    List<CommandDeclaration.Argument> arguments = declaration.arguments();
    for (int i = 0; i < arguments.size(); i++) {
      CommandDeclaration.Argument argument = arguments.get(i);
      spec.addPositional(
          PositionalParamSpec.builder()
              .index(String.valueOf(i))
              .arity(argument.optional() ? "0..1" : "1")
              .required(!argument.optional())
              .paramLabel(argument.label())
              .description(argument.description())
              .type(String.class)
              .build());
    }
    CommandLine command = new CommandLine(spec);
    for (CommandDeclaration subcommand : declaration.subcommands()) {
      command.addSubcommand(subcommand.name(), build(subcommand));
    }
    return command;
  }

  private static OptionSpec option(CommandDeclaration.Option option) {
    OptionSpec.Builder builder =
        OptionSpec.builder(option.name()).description(option.description());
    switch (option.kind()) {
      case VALUE -> {
        builder.type(String.class).arity("1").paramLabel(option.label());
        if (option.defaultValue() != null) {
          builder.defaultValue(option.defaultValue());
        }
      }
      case REPEATED ->
          builder
              .type(List.class)
              .auxiliaryTypes(String.class)
              .arity("1")
              .paramLabel(option.label())
              .initialValue(new java.util.ArrayList<String>());
      case PAIRS ->
          builder
              .type(Map.class)
              .auxiliaryTypes(String.class, String.class)
              .arity("1")
              .paramLabel(option.label())
              .initialValue(new LinkedHashMap<String, String>());
      case FLAG -> builder.type(boolean.class).arity("0");
    }
    return builder.build();
  }

  /** Runs a plugin's command: its body with what was given, or its usage if it only groups. */
  private static final class Invocation implements Callable<Integer>, CommandInput {
    private final CommandDeclaration declaration;
    CommandSpec spec;

    Invocation(CommandDeclaration declaration) {
      this.declaration = declaration;
    }

    @Override
    public Integer call() throws Exception {
      if (declaration.body() == null) {
        spec.commandLine().usage(spec.commandLine().getErr());
        return ExitCodes.INVALID;
      }
      try (Context context = new Context(spec)) {
        return declaration.body().run(this, context);
      }
    }

    @Override
    public String option(String name) {
      return spec.findOption(name).getValue();
    }

    @Override
    public List<String> options(String name) {
      List<String> values = spec.findOption(name).getValue();
      return values == null ? List.of() : List.copyOf(values);
    }

    @Override
    public Map<String, String> pairs(String name) {
      Map<String, String> values = spec.findOption(name).getValue();
      return values == null ? Map.of() : new LinkedHashMap<>(values);
    }

    @Override
    public boolean flag(String name) {
      Boolean given = spec.findOption(name).getValue();
      return given != null && given;
    }

    @Override
    public String argument(int index) {
      return spec.positionalParameters().get(index).getValue();
    }
  }

  /** What a plugin's command works with: the memory the shared options name, and the defaults. */
  private static final class Context implements CommandContext, AutoCloseable {
    private final CommandSpec spec;
    private Backend backend;
    private Transfer.Progress progress;

    Context(CommandSpec spec) {
      this.spec = spec;
    }

    @Override
    public SgmClient memory() {
      if (backend == null) {
        Connection connection = new Connection();
        connection.command = spec;
        backend = connection.open();
      }
      return backend;
    }

    @Override
    public PrintWriter out() {
      return spec.commandLine().getOut();
    }

    @Override
    public PrintWriter err() {
      return spec.commandLine().getErr();
    }

    @Override
    public InputStream in() {
      return System.in;
    }

    @Override
    public boolean interactive() {
      return System.console() != null;
    }

    @Override
    public Path workingDirectory() {
      return Path.of("").toAbsolutePath();
    }

    @Override
    public ObjectNode scope(String project, Map<String, String> more) {
      ObjectNode scope = Json.object();
      scope.put("project", project != null ? project : Remember.defaultProject());
      more.forEach(scope::put);
      return scope;
    }

    @Override
    public String agent(String agent) {
      return agent != null ? agent : Remember.defaultAgent();
    }

    @Override
    public void print(JsonNode result) {
      JsonIo.print(spec, result);
    }

    @Override
    public void progress(String what, long done, long total) {
      if (progress == null) {
        progress = new Transfer.Progress(err(), what);
      }
      progress.update(done, total);
    }

    @Override
    public void close() {
      if (progress != null) {
        progress.finish();
      }
      if (backend != null) {
        backend.close();
      }
    }
  }
}
