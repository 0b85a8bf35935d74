package dev.sgm.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Codex's settings: hooks in {@code hooks.json} ({@code $CODEX_HOME}, or a project's {@code
 * .codex/}); their trust in the user's {@code config.toml}, the one layer Codex reads hook state
 * from, without which it skips them silently; and the MCP server in {@code config.toml} (the
 * user's, or the project's, which Codex reads in a trusted project). What goes into a {@code
 * config.toml} is one block between comment lines, which uninstall removes.
 */
final class CodexSettings implements AgentSettings {
  static final int START_TIMEOUT = 10;

  /** Codex gives SessionEnd hooks 3 s at most, and warns about a longer timeout. */
  static final int END_TIMEOUT = 3;

  static final String START_MATCHER = "startup|clear";

  /**
   * Variables Codex does not pass to an MCP server (it filters the environment) that decide which
   * JDK sgm runs on and where its data is, written into the entry when set at install.
   */
  static final List<String> PASSED_ENV =
      List.of("JAVA_HOME", "SGM_DATA_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME");

  private static Path hooksFile(HookSetup setup) {
    return setup.projectDir() == null
        ? setup.places().codexHome().resolve("hooks.json")
        : setup.projectDir().resolve(".codex/hooks.json");
  }

  static Path userConfig(HookSetup setup) {
    return setup.places().codexHome().resolve("config.toml");
  }

  private static Path mcpConfig(HookSetup setup) {
    return setup.projectDir() == null
        ? userConfig(setup)
        : setup.projectDir().resolve(".codex/config.toml");
  }

  /** The comment that opens and closes sgm's block, naming the installation. */
  static String marker(HookSetup setup) {
    return "sgm hooks install codex"
        + (setup.projectDir() == null ? "" : " --project-dir " + setup.projectDir());
  }

  @Override
  public List<Path> jsonFiles(HookSetup setup) {
    return List.of(hooksFile(setup));
  }

  @Override
  public List<String> apply(HookSetup setup, SettingsEditor editor) {
    Path hooks = hooksFile(setup);
    List<Trusted> trusted = new ArrayList<>();
    String start = setup.command("session-start");
    ObjectNode startGroup = AgentSettings.group(START_MATCHER, start, START_TIMEOUT);
    trusted.add(
        Trusted.of(
            hooks,
            "SessionStart",
            editor.addHook(hooks, "SessionStart", startGroup, start),
            startGroup));
    // Stop ends each turn (a codex exec session has one) with the time a JVM needs, which
    // SessionEnd's 3 s may not leave it on a busy machine; both update the session's one record.
    String stop = setup.command("stop");
    ObjectNode stopGroup = AgentSettings.group(null, stop, START_TIMEOUT);
    trusted.add(
        Trusted.of(hooks, "Stop", editor.addHook(hooks, "Stop", stopGroup, stop), stopGroup));
    String end = setup.command("session-end");
    ObjectNode endGroup = AgentSettings.group(null, end, END_TIMEOUT);
    trusted.add(
        Trusted.of(
            hooks, "SessionEnd", editor.addHook(hooks, "SessionEnd", endGroup, end), endGroup));

    List<String> notes = new ArrayList<>();
    StringBuilder mcp = new StringBuilder();
    Path mcpConfig = mcpConfig(setup);
    if (TomlBlocks.defines(editor.toml(mcpConfig), List.of("mcp_servers", "sgm"))) {
      notes.add(
          mcpConfig
              + " already defines mcp_servers.sgm outside sgm's block: left as it is, so Codex"
              + " runs that server.");
    } else {
      mcp.append(server(setup));
    }
    StringBuilder trust = new StringBuilder();
    Path config = userConfig(setup);
    for (Trusted hook : trusted) {
      if (TomlBlocks.defines(editor.toml(config), List.of("hooks", "state", hook.key()))) {
        notes.add(
            config
                + " already has hooks.state for "
                + hook.key()
                + ": left as it is; if that hook does not run, trust it in Codex (/hooks).");
        continue;
      }
      trust.append("\n[hooks.state.").append(TomlBlocks.string(hook.key())).append("]\n");
      trust.append("trusted_hash = ").append(TomlBlocks.string(hook.hash())).append('\n');
    }
    String marker = marker(setup);
    String comment =
        "# Written by `"
            + marker
            + "`; `"
            + marker.replace(" install ", " uninstall ")
            + "` removes it.\n";
    if (mcpConfig.equals(config)) {
      editor.appendTomlBlock(config, marker, body(comment, mcp + trust.toString()), "sgm's block");
    } else {
      editor.appendTomlBlock(mcpConfig, marker, body(comment, mcp.toString()), "mcp_servers.sgm");
      editor.appendTomlBlock(config, marker, body(comment, trust.toString()), "hooks.state");
    }
    notes.add(
        "The next Codex session"
            + (setup.projectDir() == null ? "" : " in " + setup.projectDir())
            + " starts with the brief, and has sgm's tools (mcp__sgm).");
    if (setup.projectDir() != null) {
      notes.add(
          "Codex runs a project's hooks (and reads its .codex/config.toml) only in a trusted"
              + " project: trust "
              + setup.projectDir()
              + " when Codex asks, or set [projects.\""
              + setup.projectDir()
              + "\"] trust_level = \"trusted\" in "
              + config
              + ".");
    }
    return notes;
  }

  private static String body(String comment, String tables) {
    return tables.isBlank() ? "" : comment + tables.stripLeading();
  }

  /** A hook to trust: its state key and its hash. */
  private record Trusted(String key, String hash) {
    static Trusted of(Path hooks, String event, int group, ObjectNode definition) {
      String snake = CodexTrust.snake(event);
      return new Trusted(
          CodexTrust.key(hooks.toString(), snake, group, 0),
          CodexTrust.hash(snake, definition, definition.get("hooks").get(0)));
    }
  }

  /** {@code [mcp_servers.sgm]} with its command, arguments and the environment Codex drops. */
  private static String server(HookSetup setup) {
    StringBuilder toml = new StringBuilder("\n[mcp_servers.sgm]\n");
    toml.append("command = ").append(TomlBlocks.string(setup.sgm())).append('\n');
    toml.append("args = ").append(TomlBlocks.strings(setup.mcpArguments())).append('\n');
    toml.append("\n[mcp_servers.sgm.env]\n");
    for (String name : PASSED_ENV) {
      String value = setup.places().env(name);
      if (value != null) {
        toml.append(name).append(" = ").append(TomlBlocks.string(value)).append('\n');
      }
    }
    return toml.toString();
  }
}
