package dev.sgm.app;

import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Cursor's settings: {@code hooks.json} (flat entries under camelCase events, beside a {@code
 * version}) and {@code mcp.json}, in {@code ~/.cursor/} for the user or a project's {@code
 * .cursor/}. Entries are kept to {@code command} and {@code timeout}: older builds refuse more.
 */
final class CursorSettings implements AgentSettings {
  static final int TIMEOUT = 10;

  private static Path folder(HookSetup setup) {
    return setup.projectDir() == null
        ? setup.places().home().resolve(".cursor")
        : setup.projectDir().resolve(".cursor");
  }

  @Override
  public List<Path> jsonFiles(HookSetup setup) {
    return List.of(folder(setup).resolve("hooks.json"), folder(setup).resolve("mcp.json"));
  }

  @Override
  public List<String> apply(HookSetup setup, SettingsEditor editor) {
    Path hooks = folder(setup).resolve("hooks.json");
    if (!editor.object(hooks).has("version")) {
      editor.setMember(hooks, "version", IntNode.valueOf(1));
    }
    for (String event : List.of("session-start", "session-end", "pre-compact")) {
      String command = setup.command(event);
      ObjectNode entry = Json.object().put("command", command);
      if (event.equals("session-start")) {
        entry.put("timeout", TIMEOUT);
      }
      editor.addHook(hooks, setup.agent().eventName(event), entry, command);
    }
    ObjectNode server = Json.object().put("command", setup.sgm());
    server.set("args", AgentSettings.strings(setup.mcpArguments()));
    editor.setMember(folder(setup).resolve("mcp.json"), "sgm", server, "mcpServers");
    List<String> notes = new ArrayList<>();
    notes.add("Restart Cursor, and enable the server sgm in its settings (MCP).");
    if (setup.projectDir() != null) {
      notes.add("Cursor runs a project's hooks only in a trusted workspace.");
    }
    return notes;
  }
}
