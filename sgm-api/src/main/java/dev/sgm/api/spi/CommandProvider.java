package dev.sgm.api.spi;

/**
 * A command a plugin adds to {@code sgm}, such as the code profile's {@code sgm code import-diff}:
 * declared as data (its name, description, options and arguments, or its subcommands), so that the
 * command line builds it like its own commands, with the same help, errors and exit codes, and runs
 * it with what the user gave and a way to the memory. Found through {@link Plugins}, as every
 * plugin is; two commands of one name stop the command line at start.
 */
public interface CommandProvider {
  /** The command, a top-level word of {@code sgm}. */
  CommandDeclaration command();
}
