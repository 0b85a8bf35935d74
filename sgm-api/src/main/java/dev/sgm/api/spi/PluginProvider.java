package dev.sgm.api.spi;

import java.util.Set;
import java.util.regex.Pattern;

/**
 * The shape shared by every kind of plugin (profiles, transports, storage): a validated name, an
 * order, and a factory that receives everything it needs as arguments.
 *
 * @param <T> what the provider creates
 * @param <C> the context the core hands it
 */
public interface PluginProvider<T, C> {
  /** Names are lowercase words: {@code [a-z][a-z0-9-]*}. */
  Pattern NAME = Pattern.compile("[a-z][a-z0-9-]{0,31}");

  /** The plugin's name: the capability it advertises, and the word configuration uses for it. */
  String name();

  /** Lower comes first when plugins of one kind are listed; ties are broken by name. */
  default int order() {
    return 100;
  }

  /**
   * The configuration keys this plugin reads ({@code http.port}, {@code storage.h2.sync}), so that
   * start-up refuses a key no plugin present reads, naming the nearest one: a misspelled setting is
   * an error, never silently ignored.
   */
  default Set<String> configKeys() {
    return Set.of();
  }

  /** Creates the plugin. Called once at start-up, after configuration is complete. */
  T create(Config config, C context);
}
