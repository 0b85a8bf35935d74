package dev.sgm.api.spi;

import dev.sgm.api.SgmException;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Configuration as flat dotted keys ({@code data.dir}, {@code profiles.disabled}, {@code
 * http.port}), already merged from its sources: defaults, then a file, then {@code SGM_*}
 * environment variables, then explicit options. Plugins read their own keys under their name.
 */
public final class Config {
  private final Map<String, String> values;

  private Config(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(new TreeMap<>(values));
  }

  public static Config of(Map<String, String> values) {
    return new Config(values);
  }

  public static Config empty() {
    return new Config(Map.of());
  }

  /** This configuration with {@code overrides} taking precedence. */
  public Config with(Map<String, String> overrides) {
    Map<String, String> merged = new TreeMap<>(values);
    merged.putAll(overrides);
    return new Config(merged);
  }

  /** This configuration with one key set. */
  public Config with(String key, String value) {
    return with(Map.of(key, value));
  }

  public Optional<String> get(String key) {
    return Optional.ofNullable(values.get(key)).map(String::trim).filter(v -> !v.isEmpty());
  }

  public String get(String key, String defaultValue) {
    return get(key).orElse(defaultValue);
  }

  public long getLong(String key, long defaultValue) {
    Optional<String> value = get(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    try {
      return Long.parseLong(value.get());
    } catch (NumberFormatException e) {
      throw invalid(key, "'" + value.get() + "' is not a whole number");
    }
  }

  public int getInt(String key, int defaultValue) {
    long value = getLong(key, defaultValue);
    if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      throw invalid(key, value + " is out of range");
    }
    return (int) value;
  }

  public boolean getBoolean(String key, boolean defaultValue) {
    Optional<String> value = get(key);
    if (value.isEmpty()) {
      return defaultValue;
    }
    return switch (value.get().toLowerCase(java.util.Locale.ROOT)) {
      case "true", "yes", "on", "1" -> true;
      case "false", "no", "off", "0" -> false;
      default -> throw invalid(key, "'" + value.get() + "' is not true or false");
    };
  }

  /** A comma-separated list; empty when absent. */
  public List<String> getList(String key) {
    return get(key)
        .map(v -> Arrays.stream(v.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList())
        .orElse(List.of());
  }

  /** Every key and value, sorted by key. */
  public Map<String, String> asMap() {
    return values;
  }

  private static SgmException invalid(String key, String reason) {
    return new SgmException(
        dev.sgm.api.ErrorCode.INVALID_REQUEST, "configuration " + key + ": " + reason);
  }
}
