package dev.sgm.core;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.PluginProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The one place plugins are discovered ({@link ServiceLoader}) and selected by configuration.
 * Start-up fails with a clear message on a duplicate name or a configured name that no plugin on
 * the module path has.
 */
final class PluginLoader {
  private PluginLoader() {}

  /** Every provider of {@code kind} on the module path (or class path). */
  static <P extends PluginProvider<?, ?>> List<P> load(Class<P> kind) {
    List<P> found = new ArrayList<>();
    ServiceLoader.load(kind, PluginLoader.class.getClassLoader()).forEach(found::add);
    return found;
  }

  /**
   * The providers to activate, ordered by {@code order()} then name: all of them, minus those named
   * in {@code <kind>s.disabled}, or only those named in {@code <kind>s.enabled} when it is set.
   *
   * @param kind {@code profile} or {@code transport}, for configuration keys and messages
   * @param artifactPrefix the Maven artifact prefix that provides plugins of this kind
   */
  static <P extends PluginProvider<?, ?>> List<P> select(
      String kind, String artifactPrefix, Iterable<P> providers, Config config) {
    Map<String, P> byName = new HashMap<>();
    for (P provider : providers) {
      String name = provider.name();
      if (name == null || !PluginProvider.NAME.matcher(name).matches()) {
        throw startupError(
            "the "
                + kind
                + " plugin "
                + provider.getClass().getName()
                + " has an invalid name '"
                + name
                + "'; names match "
                + PluginProvider.NAME.pattern());
      }
      P previous = byName.putIfAbsent(name, provider);
      if (previous != null) {
        throw startupError(
            "two "
                + kind
                + " plugins are named '"
                + name
                + "': "
                + describe(previous)
                + " and "
                + describe(provider)
                + "; remove one of them from the module path");
      }
    }
    List<String> enabled = config.getList(kind + "s.enabled");
    List<String> disabled = config.getList(kind + "s.disabled");
    for (String key : List.of(kind + "s.enabled", kind + "s.disabled")) {
      for (String name : config.getList(key)) {
        if (!byName.containsKey(name)) {
          throw unknown(kind, name, key, byName.keySet(), artifactPrefix);
        }
      }
    }
    Set<String> active = new LinkedHashSet<>(enabled.isEmpty() ? byName.keySet() : enabled);
    disabled.forEach(active::remove);
    return byName.values().stream()
        .filter(p -> active.contains(p.name()))
        .sorted(Comparator.comparingInt((P p) -> p.order()).thenComparing(PluginProvider::name))
        .toList();
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
    return startupError(
        "unknown "
            + kind
            + " '"
            + name
            + "' in "
            + key
            + "; available: "
            + available.stream().sorted().toList()
            + " (the artifact "
            + prefix
            + name
            + " provides it, when it exists)");
  }

  private static String describe(Object provider) {
    Class<?> type = provider.getClass();
    String module = type.getModule().isNamed() ? type.getModule().getName() : "class path";
    return type.getName() + " (" + module + ")";
  }

  static SgmException startupError(String message) {
    return new SgmException(ErrorCode.INVALID_REQUEST, message);
  }
}
