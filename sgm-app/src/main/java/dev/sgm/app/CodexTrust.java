package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Codex runs a hook that no administrator manages only once it is trusted: {@code config.toml}
 * holds {@code [hooks.state."<hooks.json>:<event>:<group>:<handler>"]} with {@code trusted_hash},
 * the hash of the hook's definition. Codex computes it as SHA-256 over serde_json's compact
 * rendering (keys sorted, nothing escaped that need not be) of {@code {"event_name", "hooks":
 * [handler], "matcher"}}, the handler being {@code {"async", "command", "statusMessage"?,
 * "timeout", "type"}} with a timeout of 600 seconds when none is set; events that ignore matchers
 * leave {@code matcher} out. A hook whose definition changes needs trusting again.
 */
final class CodexTrust {
  /** Codex's default timeout for a command hook, in seconds. */
  static final int DEFAULT_TIMEOUT = 600;

  private CodexTrust() {}

  /** The state key of handler {@code handler} of group {@code group} of {@code event}. */
  static String key(String hooksFile, String eventSnake, int group, int handler) {
    return hooksFile + ":" + eventSnake + ":" + group + ":" + handler;
  }

  /** {@code SessionStart} as Codex's state keys and hashes name it: {@code session_start}. */
  static String snake(String event) {
    return event.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * The trusted hash of {@code handler} (a hooks.json handler) in {@code group}'s matcher group.
   */
  static String hash(String eventSnake, JsonNode group, JsonNode handler) {
    StringBuilder json = new StringBuilder("{\"event_name\":").append(string(eventSnake));
    json.append(",\"hooks\":[{\"async\":").append(handler.path("async").asBoolean(false));
    json.append(",\"command\":").append(string(handler.path("command").asText()));
    if (handler.hasNonNull("statusMessage")) {
      json.append(",\"statusMessage\":").append(string(handler.path("statusMessage").asText()));
    }
    int timeout = Math.max(1, handler.path("timeout").asInt(DEFAULT_TIMEOUT));
    json.append(",\"timeout\":").append(timeout).append(",\"type\":\"command\"}]");
    boolean matcherCounts = !eventSnake.equals("user_prompt_submit") && !eventSnake.equals("stop");
    if (matcherCounts && group.hasNonNull("matcher")) {
      json.append(",\"matcher\":").append(string(group.path("matcher").asText()));
    }
    json.append('}');
    return "sha256:" + HookSetup.sha256(json.toString());
  }

  /** A JSON string as serde_json writes it: only quotes, backslashes and controls escaped. */
  static String string(String value) {
    StringBuilder out = new StringBuilder("\"");
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
