package dev.sgm.app;

import dev.sgm.api.spi.Config;
import dev.sgm.core.ConfigLoader;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * Where a command's operations go and how the engine is configured: the shared options, which
 * {@link Sgm} declares once and picocli lets every command take, before or after its name.
 */
// @Command with nothing set: picocli takes as a mixin only a class with one of its annotations.
@Command
final class Connection {
  @Spec(Spec.Target.MIXEE)
  CommandSpec command;

  /** The root command, whose fields hold the shared options wherever they were given. */
  private Sgm shared() {
    return (Sgm) command.root().userObject();
  }

  /** The server given with {@code --remote}, or null for the embedded store. */
  String remote() {
    return shared().remote;
  }

  /** Whether {@code --memory} asked for a throw-away in-memory store. */
  boolean memory() {
    return shared().memory;
  }

  Config config() {
    Sgm shared = shared();
    Map<String, String> options = new HashMap<>(shared.settings);
    if (shared.data != null) {
      options.put(ConfigLoader.DATA_DIR, shared.data.toString());
    }
    if (shared.memory) {
      options.put(ConfigLoader.STORAGE_MEMORY, "true");
    }
    if (shared.config != null) {
      options.put(ConfigLoader.CONFIG_FILE, shared.config.toString());
    }
    if (!serving()) {
      // A short command leaves embedding to the next server: loading the model costs more than
      // the command itself.
      options.putIfAbsent(ConfigLoader.EMBED_IN_BACKGROUND, "false");
    }
    return ConfigLoader.loadChecked(options, Set.of(LocalChannel.TIMEOUT_KEY));
  }

  /** Whether the command serves until stopped ({@code serve}, {@code mcp}) rather than once. */
  private boolean serving() {
    CommandSpec topLevel = command;
    while (topLevel.parent() != null && topLevel.parent().parent() != null) {
      topLevel = topLevel.parent();
    }
    return topLevel.userObject() instanceof Serve || topLevel.userObject() instanceof Mcp;
  }

  Backend open() {
    Sgm shared = shared();
    if (shared.remote == null) {
      return Backend.embedded(config());
    }
    String presented = shared.token != null ? shared.token : System.getenv("SGM_TOKEN");
    return Backend.remote(
        shared.remote, presented == null || presented.isBlank() ? null : presented);
  }
}
