package dev.sgm.api.spi;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How plugins of one kind are chosen by configuration: all of them, minus those named in {@code
 * <kind>s.disabled}, or only those named in {@code <kind>s.enabled} when it is set. The core uses
 * it for profiles, transports and embedders, and a transport for plugins of its own (the HTTP
 * transport's web apps), so every kind is switched the same way. Start-up fails with a clear
 * message on an invalid or duplicate name, or a configured name that no plugin present has.
 */
public final class PluginSelection {
  private PluginSelection() {}

  /**
   * The providers to activate, ordered by {@code order()} then name.
   *
   * @param kind {@code profile}, {@code transport}, ..., for configuration keys and messages
   * @param artifactPrefix the Maven artifact prefix that provides plugins of this kind
   */
  public static <P extends PluginProvider<?, ?>> List<P> select(
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

  /** The error for a configured name that no plugin of {@code kind} present has. */
  public static SgmException unknown(
      String kind, String name, String key, Collection<String> available, String prefix) {
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

  /** An error that stops start-up. */
  public static SgmException startupError(String message) {
    return new SgmException(ErrorCode.INVALID_REQUEST, message);
  }

  private static String describe(Object provider) {
    Class<?> type = provider.getClass();
    String module = type.getModule().isNamed() ? type.getModule().getName() : "class path";
    return type.getName() + " (" + module + ")";
  }
}
