package dev.sgm.core;

import dev.sgm.api.spi.Config;
import java.util.HashMap;
import java.util.Map;

/** Runtimes for tests: in memory unless a data directory is given, no environment leaking in. */
final class TestRuntimes {
  private TestRuntimes() {}

  static Config memory(String... keysAndValues) {
    Map<String, String> options = new HashMap<>();
    options.put(ConfigLoader.STORAGE_MEMORY, "true");
    for (int i = 0; i < keysAndValues.length; i += 2) {
      options.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return ConfigLoader.load(options, Map.of());
  }

  static SgmRuntime open(String... keysAndValues) {
    return SgmRuntime.open(memory(keysAndValues));
  }
}
