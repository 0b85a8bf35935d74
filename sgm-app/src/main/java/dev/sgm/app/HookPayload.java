package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;

/**
 * What an agent's hook payload says about its session: its id, where it runs and its transcript.
 * Claude Code and Codex send {@code session_id}, {@code cwd} and {@code transcript_path}; Cursor
 * sends {@code session_id} (or {@code conversation_id}), {@code workspace_roots} and a transcript
 * path that its command-line agent leaves null.
 *
 * @param agent the agent that sent it
 * @param session the session's id, or null
 * @param cwd the directory the session works in
 * @param transcriptPath the transcript's path as sent, or null
 */
record HookPayload(HookAgent agent, String session, Path cwd, String transcriptPath) {
  /** The payload {@code json} of {@code agent}; {@code here} when it names no directory. */
  static HookPayload of(HookAgent agent, JsonNode json, Path here) {
    String session = text(json, "session_id");
    if (session == null) {
      session = text(json, "conversation_id");
    }
    String dir = agent == HookAgent.CURSOR ? text(json.path("workspace_roots"), 0) : null;
    if (dir == null) {
      dir = text(json, "cwd");
    }
    Path cwd = here;
    if (dir != null) {
      try {
        cwd = Path.of(dir).toAbsolutePath().normalize();
      } catch (InvalidPathException e) {
        cwd = here;
      }
    }
    return new HookPayload(agent, session, cwd, text(json, "transcript_path"));
  }

  private static String text(JsonNode json, String field) {
    JsonNode value = json.path(field);
    return value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
  }

  private static String text(JsonNode array, int index) {
    JsonNode value = array.path(index);
    return value.isTextual() && !value.asText().isBlank() ? value.asText() : null;
  }

  /**
   * The transcript: the path sent, else (Cursor's command-line agent sends none) where Cursor keeps
   * it, {@code ~/.cursor/projects/<root, "/"-less, other characters "-">/agent-transcripts/
   * <id>.jsonl} or {@code <id>/<id>.jsonl}; null when there is none.
   */
  Path transcript(HookPlaces places) {
    if (transcriptPath != null) {
      return Path.of(transcriptPath);
    }
    if (agent != HookAgent.CURSOR || session == null) {
      return null;
    }
    String slug = cwd.toString().replaceFirst("^/", "").replaceAll("[^A-Za-z0-9]", "-");
    Path folder =
        places.home().resolve(".cursor/projects").resolve(slug).resolve("agent-transcripts");
    for (Path candidate :
        new Path[] {
          folder.resolve(session + ".jsonl"), folder.resolve(session).resolve(session + ".jsonl")
        }) {
      if (Files.isRegularFile(candidate)) {
        return candidate;
      }
    }
    return null;
  }
}
