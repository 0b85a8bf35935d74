package dev.sgm.app;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code status} record a session leaves when it ends or compacts: what it was asked, what it
 * edited and what it answered, quoted from its transcript (no model is involved), so that the next
 * session's brief shows it under "Latest status of each agent". One record per session ({@code
 * session-<agent>-<session id>}): a compaction and then the end update the same record.
 */
final class SessionCapture {
  /** The most characters of content: a session's record must not crowd out the memory. */
  static final int MAX_CONTENT = 8000;

  /** The most characters of one prompt, so that one pasted log leaves room for the rest. */
  static final int MAX_PROMPT = 2000;

  static final int MAX_ANSWER = 3000;

  /** Record ids exclude whitespace and control characters, and take 256 characters at most. */
  private static final int MAX_ID = 256;

  private SessionCapture() {}

  /**
   * The record.
   *
   * @param agent who the session was ({@code provenance.agent})
   * @param session the session's id
   * @param cwd where it ran, which edited paths are shown relative to
   * @param project the project it belongs to
   * @param state what is happening: {@code session ended}, {@code compacting}, ...
   */
  static ObjectNode record(
      String agent,
      String session,
      Path cwd,
      String project,
      String state,
      SessionTranscript transcript,
      Instant now) {
    String id = id("session-" + agent + "-" + session);
    List<String> files = new ArrayList<>();
    transcript.files().forEach(file -> files.add(relative(cwd, file)));
    ObjectNode record = Json.object().put("id", id).put("type", "status");
    record.putObject("scope").put("project", project);
    record.put("title", "Session " + clip(session, 8, "") + " of " + agent);
    record.put("content", content(agent, session, cwd, state, transcript, files));
    record.putArray("tags").add("session");
    record
        .putObject("provenance")
        .put("agent", agent)
        .put("origin", "hook")
        .put("session", session);
    ObjectNode data = record.putObject("data");
    data.put("state", state);
    data.put("summary", summary(transcript, files));
    data.put("as_of", now.toString());
    return record;
  }

  /** {@code raw} as a record id: whitespace and control characters replaced, clipped. */
  static String id(String raw) {
    String id =
        raw.replaceAll(
            "[\\p{Cntrl}\\s\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]", "_");
    return id.length() <= MAX_ID ? id : id.substring(0, MAX_ID);
  }

  /** One line for the brief: the first prompt, the files edited, the final answer, each clipped. */
  static String summary(SessionTranscript transcript, List<String> files) {
    List<String> parts = new ArrayList<>();
    if (!transcript.prompts().isEmpty()) {
      parts.add("asked \"" + clip(oneLine(transcript.prompts().get(0)), 160, "…") + "\"");
    }
    if (!files.isEmpty()) {
      parts.add(
          "edited "
              + files.size()
              + (files.size() == 1 ? " file: " : " files: ")
              + clip(String.join(", ", files), 200, "…"));
    }
    if (!transcript.answer().isBlank()) {
      parts.add("answered \"" + clip(oneLine(transcript.answer()), 200, "…") + "\"");
    }
    return parts.isEmpty() ? "nothing read from its transcript" : String.join("; ", parts);
  }

  /** The prompts, the files and the answer, verbatim, within {@link #MAX_CONTENT}. */
  static String content(
      String agent,
      String session,
      Path cwd,
      String state,
      SessionTranscript transcript,
      List<String> files) {
    StringBuilder text = new StringBuilder();
    text.append("Session ").append(session).append(" of ").append(agent);
    text.append(" in ").append(cwd).append(": ").append(state).append(".\n");
    for (String skipped : transcript.skipped()) {
      text.append("Skipped: ").append(skipped).append(".\n");
    }
    text.append("\n## Prompts (").append(transcript.prompts().size()).append(")\n");
    int n = 0;
    for (String prompt : transcript.prompts()) {
      text.append(++n).append(". ").append(truncate(prompt, MAX_PROMPT));
      text.append('\n');
    }
    text.append("\n## Files edited (").append(files.size()).append(")\n");
    files.forEach(file -> text.append("- ").append(file).append('\n'));
    text.append("\n## Final answer\n");
    String answer = transcript.answer();
    text.append(answer.isBlank() ? "(none)" : truncate(answer, MAX_ANSWER));
    text.append('\n');
    return truncate(text.toString(), MAX_CONTENT);
  }

  /** {@code file} relative to {@code cwd} when inside it. */
  static String relative(Path cwd, String file) {
    try {
      Path path = Path.of(file);
      if (cwd != null && path.isAbsolute() && path.normalize().startsWith(cwd.normalize())) {
        String relative = cwd.normalize().relativize(path.normalize()).toString();
        return relative.isEmpty() ? file : relative;
      }
    } catch (java.nio.file.InvalidPathException e) {
      // Not a path on this system: shown as the transcript has it.
    }
    return file;
  }

  /**
   * {@code text} within {@code max} characters: cut, when longer, with a last line saying how many
   * characters were cut.
   */
  static String truncate(String text, int max) {
    if (text.length() <= max) {
      return text;
    }
    int keep = max;
    String marker = "";
    // The marker's length depends on the number it states; two rounds settle it.
    for (int round = 0; round < 3; round++) {
      marker = "\n[… " + (text.length() - keep) + " more characters cut]";
      keep = Math.max(0, max - marker.length());
    }
    if (keep > 0 && Character.isHighSurrogate(text.charAt(keep - 1))) {
      keep--;
      marker = "\n[… " + (text.length() - keep) + " more characters cut]";
    }
    return text.substring(0, keep) + marker;
  }

  /** {@code text} within {@code max} characters, ending with {@code marker} when cut. */
  static String clip(String text, int max, String marker) {
    if (text.length() <= max) {
      return text;
    }
    int keep = Math.max(0, max - marker.length());
    if (keep > 0 && Character.isHighSurrogate(text.charAt(keep - 1))) {
      keep--;
    }
    return text.substring(0, keep) + marker;
  }

  private static String oneLine(String text) {
    return text.strip().replaceAll("\\s+", " ");
  }
}
