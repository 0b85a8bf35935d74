package dev.sgm.core;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.NearestNames;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.api.spi.Listening;
import dev.sgm.api.spi.PluginProvider;
import dev.sgm.api.spi.ProfileProvider;
import dev.sgm.api.spi.StorageProvider;
import dev.sgm.api.spi.TransportProvider;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiConsumer;

/**
 * Builds the effective configuration: defaults, then a properties file ({@code config.file} or
 * {@code SGM_CONFIG_FILE}), then {@code SGM_*} environment variables ({@code SGM_PROFILES_DISABLED}
 * becomes {@code profiles.disabled}, {@code SGM_HTTP_MAX__BODY__BYTES} {@code
 * http.max-body-bytes}), then explicit options. Later sources win.
 */
public final class ConfigLoader {
  /** Where data lives unless configured. */
  public static final String DATA_DIR = "data.dir";

  /** The largest record accepted, in bytes of JSON. */
  public static final String RECORD_MAX_BYTES = "record.max.bytes";

  /** The storage plugin to use. */
  public static final String STORAGE = "storage";

  /** The storage when none is configured: the embedded store, which needs no set-up. */
  public static final String DEFAULT_STORAGE = "h2";

  /**
   * Whether this process embeds records in the background (default true). A short command turns it
   * off: the records it stores are embedded by the next long-running process, since the search
   * index knows which records have no embedding yet.
   */
  public static final String EMBED_IN_BACKGROUND = "search.embed-in-background";

  /** {@code true} keeps everything in memory (tests, throw-away demos). */
  public static final String STORAGE_MEMORY = "storage.memory";

  /** What a write does with a credential found in it: redact (default), reject or allow. */
  public static final String SECRETS_ON_DETECT = "secrets.on-detect";

  /**
   * How long the change feed keeps an entry (default {@code 7d}); a cursor older than that is
   * {@code cursor_expired}. A duration such as {@code 7d}, {@code 12h}, {@code 90s} or {@code P7D}.
   */
  public static final String CHANGES_RETENTION = "changes.retention";

  /**
   * How many events a watch buffers for a slow consumer (default 1000) before it reads from the
   * change log instead.
   */
  public static final String WATCH_BUFFER = "watch.buffer";

  /** Where a file of settings is read from (before the environment and options). */
  public static final String CONFIG_FILE = "config.file";

  /**
   * The keys the core reads itself, and those several plugins share; each plugin declares its own
   * ({@link PluginProvider#configKeys()}).
   */
  static final Set<String> CORE_KEYS =
      Set.of(
          DATA_DIR,
          RECORD_MAX_BYTES,
          STORAGE,
          STORAGE_MEMORY,
          EMBED_IN_BACKGROUND,
          SECRETS_ON_DETECT,
          CHANGES_RETENTION,
          WATCH_BUFFER,
          CONFIG_FILE,
          "watch.heartbeat-ms",
          Listening.PLAINTEXT,
          "auth.enabled",
          "auth.token",
          "auth.token-file",
          AccessTokens.FAILURE_LIMIT,
          AccessTokens.FAILURE_WINDOW,
          AuditTrail.FILE,
          "profiles.enabled",
          "profiles.disabled",
          "transports.enabled",
          "transports.disabled",
          "embedders.enabled",
          "embedders.disabled");

  private ConfigLoader() {}

  /**
   * As {@link #load(Map)}, refusing at once a key given in {@code explicit} or in the configuration
   * file that neither the core, the host ({@code hostKeys}) nor any plugin present reads, with the
   * nearest known key: a misspelled setting would otherwise be ignored in silence. {@code SGM_*}
   * variables are not checked, since the environment is shared with the launcher and the clients
   * ({@code SGM_JAVA_OPTS}, {@code SGM_TOKEN}). A process without the storage plugins (a relay)
   * cannot tell its plugins' keys and leaves the check to the process it relays to.
   */
  public static Config loadChecked(Map<String, String> explicit, Set<String> hostKeys) {
    Map<String, String> given = new TreeMap<>();
    explicit.keySet().forEach(key -> given.put(key, "given as an option"));
    Config config =
        load(
            explicit,
            System.getenv(),
            (file, keys) -> keys.forEach(key -> given.putIfAbsent(key, "in " + file)));
    given.keySet().removeIf(key -> CORE_KEYS.contains(key) || hostKeys.contains(key));
    if (given.isEmpty()) {
      return config;
    }
    List<PluginProvider<?, ?>> plugins = new ArrayList<>();
    plugins.addAll(PluginLoader.load(StorageProvider.class));
    if (plugins.isEmpty()) {
      return config;
    }
    plugins.addAll(PluginLoader.load(ProfileProvider.class));
    plugins.addAll(PluginLoader.load(TransportProvider.class));
    plugins.addAll(PluginLoader.load(EmbedderProvider.class));
    Set<String> known = new TreeSet<>(CORE_KEYS);
    known.addAll(hostKeys);
    plugins.forEach(plugin -> known.addAll(plugin.configKeys()));
    for (Map.Entry<String, String> key : given.entrySet()) {
      if (!known.contains(key.getKey())) {
        String suggestion = NearestNames.didYouMean(key.getKey(), known);
        throw new SgmException(
            ErrorCode.INVALID_REQUEST,
            "unknown configuration key '"
                + key.getKey()
                + "' ("
                + key.getValue()
                + ")"
                + (suggestion.isEmpty() ? "." : suggestion)
                + " Every key is listed in docs/configuration.md.");
      }
    }
    return config;
  }

  /** The configuration from this process's environment plus {@code explicit} options. */
  public static Config load(Map<String, String> explicit) {
    return load(explicit, System.getenv());
  }

  /** The configuration from the given environment plus {@code explicit} options. */
  public static Config load(Map<String, String> explicit, Map<String, String> environment) {
    return load(explicit, environment, (file, keys) -> {});
  }

  /** As {@link #load(Map, Map)}, telling {@code fileKeys} which keys the file set. */
  private static Config load(
      Map<String, String> explicit,
      Map<String, String> environment,
      BiConsumer<String, Set<String>> fileKeys) {
    Map<String, String> merged = new HashMap<>(defaults(environment));
    Map<String, String> fromEnv = fromEnvironment(environment);
    String file = explicit.getOrDefault(CONFIG_FILE, fromEnv.get(CONFIG_FILE));
    if (file != null && !file.isBlank()) {
      Map<String, String> fromFile = readFile(Path.of(file));
      fileKeys.accept(file, fromFile.keySet());
      merged.putAll(fromFile);
    }
    merged.putAll(fromEnv);
    merged.putAll(explicit);
    return Config.of(merged);
  }

  static Map<String, String> defaults(Map<String, String> environment) {
    Map<String, String> defaults = new HashMap<>();
    defaults.put(DATA_DIR, defaultDataDir(environment).toString());
    defaults.put(STORAGE, DEFAULT_STORAGE);
    defaults.put(RECORD_MAX_BYTES, Long.toString(1024 * 1024));
    return defaults;
  }

  /** {@code $XDG_DATA_HOME/sgm}, else {@code ~/.local/share/sgm}. */
  static Path defaultDataDir(Map<String, String> environment) {
    String xdg = environment.get("XDG_DATA_HOME");
    if (xdg != null && !xdg.isBlank()) {
      return Path.of(xdg, "sgm");
    }
    return Path.of(System.getProperty("user.home"), ".local", "share", "sgm");
  }

  /**
   * The {@code SGM_*} variables as keys: the prefix dropped, lower case, a double underscore a
   * hyphen and a single one a dot, since environment names cannot hold either. {@code
   * SGM_HTTP_MAX__BODY__BYTES} sets {@code http.max-body-bytes}.
   */
  static Map<String, String> fromEnvironment(Map<String, String> environment) {
    Map<String, String> values = new HashMap<>();
    environment.forEach(
        (name, value) -> {
          if (name.startsWith("SGM_") && name.length() > 4) {
            String key =
                name.substring(4).toLowerCase(Locale.ROOT).replace("__", "-").replace('_', '.');
            values.put(key, value);
          }
        });
    return values;
  }

  private static Map<String, String> readFile(Path file) {
    Properties properties = new Properties();
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      properties.load(reader);
    } catch (IOException e) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "configuration file " + file + " cannot be read: " + e.getMessage());
    }
    Map<String, String> values = new HashMap<>();
    properties.forEach((k, v) -> values.put(k.toString(), v.toString()));
    return values;
  }
}
