package dev.sgm.core;

import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.PluginProvider;
import dev.sgm.api.spi.PluginSelection;
import dev.sgm.api.spi.Plugins;
import java.util.ArrayList;
import java.util.List;

/**
 * The one place the core has plugins discovered ({@link Plugins}) and selects them by
 * configuration. Start-up fails with a clear message on a duplicate name or a configured name that
 * no plugin on the module path has.
 */
final class PluginLoader {
  private PluginLoader() {}

  /** Every provider of {@code kind} on the module path (or class path). */
  static <P extends PluginProvider<?, ?>> List<P> load(Class<P> kind) {
    List<P> found = new ArrayList<>();
    Plugins.load(kind).forEach(found::add);
    return found;
  }

  /** The providers to activate: see {@link PluginSelection#select}. */
  static <P extends PluginProvider<?, ?>> List<P> select(
      String kind, String artifactPrefix, Iterable<P> providers, Config config) {
    return PluginSelection.select(kind, artifactPrefix, providers, config);
  }

  /**
   * The one provider of {@code kind} named by the configuration key {@code key} (a plugin kind of
   * which exactly one runs, such as storage), with the same checks and messages as {@link #select}.
   */
  static <P extends PluginProvider<?, ?>> P selectOne(
      String kind, String key, String artifactPrefix, Iterable<P> providers, Config config) {
    List<P> all = select(kind, artifactPrefix, providers, Config.empty());
    String name =
        config.get(key).orElseThrow(() -> startupError("configuration " + key + ": is required"));
    return all.stream()
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow(
            () ->
                unknown(
                    kind,
                    name,
                    key,
                    all.stream().map(PluginProvider::name).toList(),
                    artifactPrefix));
  }

  private static SgmException unknown(
      String kind, String name, String key, java.util.Collection<String> available, String prefix) {
    return PluginSelection.unknown(kind, name, key, available, prefix);
  }

  static SgmException startupError(String message) {
    return PluginSelection.startupError(message);
  }
}
