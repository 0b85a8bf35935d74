package dev.sgm.app;

import java.nio.file.Path;
import java.util.Map;

/**
 * Where the agents keep their settings and sgm its record of what it installed, read through this
 * one seam: the home directory and the environment variables that move them ({@code CODEX_HOME},
 * {@code XDG_CONFIG_HOME}). Tests and trials point it at a scratch home.
 *
 * @param home the home directory
 * @param env the environment variables to honour; empty for a scratch home
 */
record HookPlaces(Path home, Map<String, String> env) {
  HookPlaces {
    home = home.toAbsolutePath().normalize();
    env = Map.copyOf(env);
  }

  /**
   * This user's: {@code HOME} when set, as the agents themselves read it (the JVM's {@code
   * user.home} comes from the password database and ignores it), else {@code user.home}.
   */
  static HookPlaces system() {
    String home = System.getenv("HOME");
    Path dir =
        home != null && !home.isBlank() ? Path.of(home) : Path.of(System.getProperty("user.home"));
    return new HookPlaces(dir, System.getenv());
  }

  /** A scratch home: every place under {@code home}, whatever the environment says. */
  static HookPlaces at(Path home) {
    return new HookPlaces(home, Map.of());
  }

  /** An environment variable, or null when unset or blank. */
  String env(String name) {
    String value = env.get(name);
    return value == null || value.isBlank() ? null : value;
  }

  /** {@code $XDG_CONFIG_HOME}, else {@code ~/.config}. */
  Path configHome() {
    String xdg = env("XDG_CONFIG_HOME");
    return xdg != null ? Path.of(xdg).toAbsolutePath() : home.resolve(".config");
  }

  /** Where the record of each installation is kept. */
  Path ledgers() {
    return configHome().resolve("sgm").resolve("hooks");
  }

  /** {@code $CODEX_HOME}, else {@code ~/.codex}. */
  Path codexHome() {
    String codex = env("CODEX_HOME");
    return codex != null ? Path.of(codex).toAbsolutePath().normalize() : home.resolve(".codex");
  }
}
