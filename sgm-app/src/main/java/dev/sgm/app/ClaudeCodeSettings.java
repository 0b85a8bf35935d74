package dev.sgm.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Claude Code's settings. For the user: hooks and {@code permissions.allow} in {@code
 * ~/.claude/settings.json}, the MCP server in {@code ~/.claude.json} (Claude Code ignores servers
 * in settings.json). For a project: hooks, {@code permissions.allow} and {@code
 * enabledMcpjsonServers} in {@code .claude/settings.local.json}, which is personal and in force at
 * once (a project's settings.json allow rules wait for workspace trust), and the server in {@code
 * .mcp.json}. The allow rule {@code mcp__sgm} lets a non-interactive session ({@code claude -p})
 * call the tools.
 */
final class ClaudeCodeSettings implements AgentSettings {
  /** Seconds: SessionEnd's default budget is about 1.5 s, too little to start a JVM and store. */
  static final int TIMEOUT = 10;

  /** SessionStart's sources that begin a context: not {@code resume}, whose context is there. */
  static final String START_MATCHER = "startup|clear|compact";

  private static Path settings(HookSetup setup) {
    return setup.projectDir() == null
        ? setup.places().home().resolve(".claude/settings.json")
        : setup.projectDir().resolve(".claude/settings.local.json");
  }

  private static Path mcp(HookSetup setup) {
    return setup.projectDir() == null
        ? setup.places().home().resolve(".claude.json")
        : setup.projectDir().resolve(".mcp.json");
  }

  @Override
  public List<Path> jsonFiles(HookSetup setup) {
    return List.of(settings(setup), mcp(setup));
  }

  @Override
  public List<String> apply(HookSetup setup, SettingsEditor editor) {
    Path settings = settings(setup);
    String start = setup.command("session-start");
    editor.addHook(
        settings, "SessionStart", AgentSettings.group(START_MATCHER, start, TIMEOUT), start);
    for (String event : List.of("session-end", "pre-compact")) {
      String command = setup.command(event);
      editor.addHook(
          settings,
          setup.agent().eventName(event),
          AgentSettings.group(null, command, TIMEOUT),
          command);
    }
    editor.addElement(settings, "mcp__sgm", "permissions", "allow");
    if (setup.projectDir() != null) {
      editor.addElement(settings, "sgm", "enabledMcpjsonServers");
    }
    ObjectNode server = Json.object().put("type", "stdio").put("command", setup.sgm());
    server.set("args", AgentSettings.strings(setup.mcpArguments()));
    editor.setMember(mcp(setup), "sgm", server, "mcpServers");
    List<String> notes = new ArrayList<>();
    notes.add(
        "The next Claude Code session"
            + (setup.projectDir() == null ? "" : " in " + setup.projectDir())
            + " starts with the brief, and may call sgm's tools (mcp__sgm__*).");
    return notes;
  }
}
