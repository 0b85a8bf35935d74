package dev.sgm.api.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A command as a plugin declares it ({@link CommandProvider}): a word, its description (the first
 * line is its summary), its options and positional arguments and the body that runs it, or else
 * subcommands. Built with {@link #named(String)}.
 *
 * @param name the word that names it, e.g. {@code import-diff}
 * @param description lines of help; the first is the summary
 * @param options what it takes as {@code --name value}
 * @param arguments what it takes by position, in order
 * @param subcommands the commands under it; then it has no body
 * @param body what runs it; null when it only groups subcommands
 */
public record CommandDeclaration(
    String name,
    List<String> description,
    List<Option> options,
    List<Argument> arguments,
    List<CommandDeclaration> subcommands,
    Body body) {

  public CommandDeclaration {
    Objects.requireNonNull(name, "name");
    description = List.copyOf(description);
    options = List.copyOf(options);
    arguments = List.copyOf(arguments);
    subcommands = List.copyOf(subcommands);
    if ((body == null) == subcommands.isEmpty()) {
      throw new IllegalArgumentException(
          "command " + name + " needs either a body or subcommands, not both or neither");
    }
  }

  /**
   * An option: {@code --name VALUE}, or a flag, repeatable or not, or {@code KEY=VALUE} pairs.
   *
   * @param name the option with its dashes, e.g. {@code --title}
   * @param label what its value is called in help, e.g. {@code TEXT}; null for a flag
   * @param description one line of help
   * @param kind how it takes values
   * @param defaultValue the value when not given; null for none
   */
  public record Option(
      String name, String label, String description, Kind kind, String defaultValue) {
    /** How an option takes values. */
    public enum Kind {
      /** One value. */
      VALUE,
      /** A value each time it is given. */
      REPEATED,
      /** {@code KEY=VALUE}, repeatable. */
      PAIRS,
      /** No value: given or not. */
      FLAG
    }
  }

  /**
   * A positional argument.
   *
   * @param label what it is called in help, e.g. {@code FILE}
   * @param description one line of help
   * @param optional whether it may be left out
   */
  public record Argument(String label, String description, boolean optional) {}

  /** Runs a command with what the user gave; returns the exit code (0 for success). */
  @FunctionalInterface
  public interface Body {
    int run(CommandInput input, CommandContext context) throws Exception;
  }

  /** Starts the declaration of the command {@code name}. */
  public static Builder named(String name) {
    return new Builder(name);
  }

  /** A declaration under construction. */
  public static final class Builder {
    private final String name;
    private final List<String> description = new ArrayList<>();
    private final List<Option> options = new ArrayList<>();
    private final List<Argument> arguments = new ArrayList<>();
    private final List<CommandDeclaration> subcommands = new ArrayList<>();

    private Builder(String name) {
      this.name = name;
    }

    /** Lines of help; the first is the summary. */
    public Builder description(String... lines) {
      description.addAll(List.of(lines));
      return this;
    }

    public Builder option(String name, String label, String description) {
      options.add(new Option(name, label, description, Option.Kind.VALUE, null));
      return this;
    }

    public Builder option(String name, String label, String description, String defaultValue) {
      options.add(new Option(name, label, description, Option.Kind.VALUE, defaultValue));
      return this;
    }

    public Builder repeatable(String name, String label, String description) {
      options.add(new Option(name, label, description, Option.Kind.REPEATED, null));
      return this;
    }

    public Builder pairs(String name, String description) {
      options.add(new Option(name, "KEY=VALUE", description, Option.Kind.PAIRS, null));
      return this;
    }

    public Builder flag(String name, String description) {
      options.add(new Option(name, null, description, Option.Kind.FLAG, null));
      return this;
    }

    public Builder argument(String label, String description, boolean optional) {
      arguments.add(new Argument(label, description, optional));
      return this;
    }

    public Builder subcommand(CommandDeclaration subcommand) {
      subcommands.add(subcommand);
      return this;
    }

    /** The command with its subcommands. */
    public CommandDeclaration group() {
      return new CommandDeclaration(name, description, options, arguments, subcommands, null);
    }

    /** The command, run by {@code body}. */
    public CommandDeclaration body(Body body) {
      return new CommandDeclaration(
          name, description, options, arguments, subcommands, Objects.requireNonNull(body));
    }
  }
}
