package dev.sgm.app;

import dev.sgm.api.SgmException;
import java.util.List;

/**
 * The coding agents {@code sgm hooks} works with, and each one's names for the events it hooks: the
 * command line says {@code session-start}, Claude Code and Codex {@code SessionStart}, Cursor
 * {@code sessionStart}.
 */
enum HookAgent {
  CLAUDE_CODE("claude-code", "Claude Code"),
  CODEX("codex", "Codex"),
  CURSOR("cursor", "Cursor");

  /** The events {@code sgm hooks run} answers, as the command line names them. */
  static final List<String> EVENTS = List.of("session-start", "session-end", "pre-compact", "stop");

  private final String key;
  private final String title;

  HookAgent(String key, String title) {
    this.key = key;
    this.title = title;
  }

  /** Its name on the command line, and the default agent its records are written as. */
  String key() {
    return key;
  }

  /** Its name for people. */
  String title() {
    return title;
  }

  /** The agent {@code name} names; {@code field} is the argument, for the error. */
  static HookAgent named(String name, String field) {
    for (HookAgent agent : values()) {
      if (agent.key.equals(name)) {
        return agent;
      }
    }
    throw SgmException.invalidRequest(field, "must be one of claude-code, codex, cursor");
  }

  /** The agent's name for {@code event} (one of {@link #EVENTS}) in its hook settings. */
  String eventName(String event) {
    String pascal =
        switch (event) {
          case "session-start" -> "SessionStart";
          case "session-end" -> "SessionEnd";
          case "pre-compact" -> "PreCompact";
          case "stop" -> "Stop";
          default -> throw SgmException.invalidRequest("EVENT", "unknown event " + event);
        };
    return this == CURSOR ? Character.toLowerCase(pascal.charAt(0)) + pascal.substring(1) : pascal;
  }
}
