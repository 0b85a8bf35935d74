package dev.sgm.app;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.nio.file.Path;
import java.util.List;

/**
 * What {@code sgm hooks install} writes into one agent's settings, through a {@link
 * SettingsEditor}.
 */
interface AgentSettings {
  /** The JSON files it edits, read before anything else so that a broken one stops it first. */
  List<Path> jsonFiles(HookSetup setup);

  /** Makes the edits; returns what people should know next (one line each). */
  List<String> apply(HookSetup setup, SettingsEditor editor);

  static AgentSettings of(HookAgent agent) {
    return switch (agent) {
      case CLAUDE_CODE -> new ClaudeCodeSettings();
      case CODEX -> new CodexSettings();
      case CURSOR -> new CursorSettings();
    };
  }

  /**
   * A matcher group as Claude Code and Codex nest them: {@code {"matcher", "hooks": [{"type":
   * "command", "command", "timeout"}]}}, without a matcher for events that take none.
   */
  static ObjectNode group(String matcher, String command, int timeoutSeconds) {
    ObjectNode group = Json.object();
    if (matcher != null) {
      group.put("matcher", matcher);
    }
    ArrayNode hooks = group.putArray("hooks");
    hooks.addObject().put("type", "command").put("command", command).put("timeout", timeoutSeconds);
    return group;
  }

  /** A string array. */
  static ArrayNode strings(List<String> values) {
    ArrayNode array = Json.array();
    values.forEach(array::add);
    return array;
  }
}
