package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a session did, read from its agent's transcript (JSON Lines) without a model: the prompts a
 * person typed, the files the agent edited, and its final answer. What could not be read (a line
 * that is not JSON, a file that is missing) is listed rather than failing the whole.
 *
 * @param prompts the user's messages, in order
 * @param files the files edited, in order of first edit, as the transcript names them
 * @param answer the agent's last text, or empty
 * @param skipped what could not be read, one phrase each
 */
record SessionTranscript(
    List<String> prompts, List<String> files, String answer, List<String> skipped) {
  /** Lines longer than this are parsed only if they may hold a message: tool output is long. */
  private static final int LONG_LINE = 64 * 1024;

  /** apply_patch's file headers: {@code *** Add File: path}, Update, Delete, and Move to. */
  private static final Pattern PATCH_FILE =
      Pattern.compile("(?m)^\\*\\*\\* (?:Add File|Update File|Delete File|Move to): (.+)$");

  /** Cursor wraps what the user typed in {@code <user_query>}. */
  private static final Pattern USER_QUERY =
      Pattern.compile("(?s)<user_query>\\s*(.*?)\\s*</user_query>");

  SessionTranscript {
    prompts = List.copyOf(prompts);
    files = List.copyOf(files);
    skipped = List.copyOf(skipped);
  }

  /** Reads {@code file}, an {@code agent}'s transcript; {@code file} null: there is none. */
  static SessionTranscript read(HookAgent agent, Path file) {
    if (file == null) {
      return new SessionTranscript(List.of(), List.of(), "", List.of("no transcript was found"));
    }
    List<String> lines = new ArrayList<>();
    List<String> skipped = new ArrayList<>();
    try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        lines.add(line);
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      skipped.add(
          (lines.isEmpty() ? "the transcript " : "the rest of the transcript ")
              + file
              + " could not be read ("
              + e.getClass().getSimpleName()
              + ": "
              + e.getMessage()
              + ")");
    }
    SessionTranscript parsed = parse(agent, lines);
    skipped.addAll(0, parsed.skipped());
    return new SessionTranscript(parsed.prompts(), parsed.files(), parsed.answer(), skipped);
  }

  /** Parses the lines of an {@code agent}'s transcript. */
  static SessionTranscript parse(HookAgent agent, List<String> lines) {
    Reading reading = new Reading();
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.isBlank() || (line.length() > LONG_LINE && !mayHoldMessage(line))) {
        continue;
      }
      JsonNode json;
      try {
        json = Json.parse(line);
      } catch (SgmException | java.io.UncheckedIOException e) {
        reading.malformed.add(i + 1);
        continue;
      }
      switch (agent) {
        case CLAUDE_CODE -> claude(json, reading);
        case CODEX -> codex(json, reading);
        case CURSOR -> cursor(json, reading);
      }
    }
    return reading.result();
  }

  private static boolean mayHoldMessage(String line) {
    return line.contains("\"type\":\"assistant\"")
        || line.contains("\"role\":\"assistant\"")
        || line.contains("\"type\":\"event_msg\"")
        || line.contains("\"type\":\"response_item\"");
  }

  /** What has been read so far. */
  private static final class Reading {
    final List<String> prompts = new ArrayList<>();
    final List<String> fallbackPrompts = new ArrayList<>();
    final Set<String> files = new LinkedHashSet<>();
    final List<Integer> malformed = new ArrayList<>();
    String answer = "";
    String lastTaskAnswer;

    SessionTranscript result() {
      List<String> skipped = new ArrayList<>();
      if (!malformed.isEmpty()) {
        skipped.add(
            malformed.size()
                + (malformed.size() == 1
                    ? " line that is not JSON (line "
                    : " lines that are not JSON (lines ")
                + joined(malformed)
                + ")");
      }
      List<String> typed = prompts.isEmpty() ? fallbackPrompts : prompts;
      String last = lastTaskAnswer != null ? lastTaskAnswer : answer;
      return new SessionTranscript(typed, new ArrayList<>(files), last, skipped);
    }

    private static String joined(List<Integer> numbers) {
      List<String> shown = new ArrayList<>();
      numbers.stream().limit(10).forEach(n -> shown.add(String.valueOf(n)));
      return String.join(", ", shown) + (numbers.size() > 10 ? ", ..." : "");
    }
  }

  /**
   * Claude Code: {@code user} lines whose content is a string or text blocks are prompts (tool
   * results, meta lines and compaction summaries are not); {@code assistant} lines carry one block
   * each: Write, Edit and MultiEdit name {@code file_path}, NotebookEdit {@code notebook_path}.
   */
  private static void claude(JsonNode line, Reading reading) {
    String type = line.path("type").asText();
    JsonNode content = line.path("message").path("content");
    boolean aside =
        line.path("isMeta").asBoolean(false)
            || line.path("isCompactSummary").asBoolean(false)
            || line.path("isSidechain").asBoolean(false);
    if (type.equals("user") && !aside) {
      String text = content.isTextual() ? content.asText() : texts(content, "text");
      if (!text.isBlank() && !text.startsWith("<local-command-")) {
        reading.prompts.add(text);
      }
    } else if (type.equals("assistant")) {
      for (JsonNode block : content) {
        if (block.path("type").asText().equals("tool_use")) {
          String name = block.path("name").asText();
          JsonNode input = block.path("input");
          String path =
              switch (name) {
                case "Write", "Edit", "MultiEdit" -> input.path("file_path").asText("");
                case "NotebookEdit" -> input.path("notebook_path").asText("");
                default -> "";
              };
          if (!path.isEmpty()) {
            reading.files.add(path);
          }
        } else if (block.path("type").asText().equals("text") && !aside) {
          String text = block.path("text").asText("");
          if (!text.isBlank()) {
            reading.answer = text;
          }
        }
      }
    }
  }

  /**
   * Codex's rollout: prompts from the user messages it reports ({@code item_completed} UserMessage
   * or {@code user_message} events; else the user's {@code response_item}s that are not its own
   * context), files from {@code apply_patch} headers and FileChange items, the answer from the last
   * {@code task_complete} (else the last assistant message).
   */
  private static void codex(JsonNode line, Reading reading) {
    JsonNode payload = line.path("payload");
    String type = line.path("type").asText();
    String kind = payload.path("type").asText();
    if (type.equals("event_msg")) {
      JsonNode item = payload.path("item");
      if (kind.equals("user_message") && payload.path("message").isTextual()) {
        reading.prompts.add(payload.path("message").asText());
      } else if (kind.equals("item_completed")
          && item.path("type").asText().equals("UserMessage")) {
        reading.prompts.add(texts(item.path("content"), "text"));
      } else if (kind.equals("item_completed") && item.path("type").asText().equals("FileChange")) {
        item.path("changes").fieldNames().forEachRemaining(reading.files::add);
      } else if (kind.equals("task_complete") && payload.path("last_agent_message").isTextual()) {
        reading.lastTaskAnswer = payload.path("last_agent_message").asText();
      }
    } else if (type.equals("response_item")) {
      String role = payload.path("role").asText();
      if (kind.equals("message") && role.equals("user")) {
        String text = texts(payload.path("content"), "input_text");
        if (!text.isBlank() && !text.startsWith("<")) {
          reading.fallbackPrompts.add(text);
        }
      } else if (kind.equals("message") && role.equals("assistant")) {
        String text = texts(payload.path("content"), "output_text");
        if (!text.isBlank()) {
          reading.answer = text;
        }
      } else if (payload.path("name").asText().equals("apply_patch")) {
        String patch = payload.path("input").asText("");
        if (kind.equals("function_call")) {
          patch = argumentsInput(payload.path("arguments").asText(""));
        }
        Matcher header = PATCH_FILE.matcher(patch);
        while (header.find()) {
          reading.files.add(header.group(1).strip());
        }
      }
    }
  }

  private static String argumentsInput(String arguments) {
    try {
      JsonNode json = Json.parse(arguments);
      return json.path("input").asText(json.isTextual() ? json.asText() : "");
    } catch (SgmException e) {
      return arguments;
    }
  }

  /**
   * Cursor: {@code {"role", "message": {"content": [...]}}} lines; the user's text inside {@code
   * <user_query>}, Write and StrReplace (and Delete) naming {@code path}.
   */
  private static void cursor(JsonNode line, Reading reading) {
    String role = line.path("role").asText(line.path("message").path("role").asText());
    JsonNode content = line.path("message").path("content");
    if (role.equals("user")) {
      String text = content.isTextual() ? content.asText() : texts(content, "text");
      Matcher query = USER_QUERY.matcher(text);
      String prompt = query.find() ? query.group(1) : text.strip();
      if (!prompt.isBlank()) {
        reading.prompts.add(prompt);
      }
    } else if (role.equals("assistant")) {
      for (JsonNode block : content) {
        String type = block.path("type").asText();
        String name = block.path("name").asText();
        if (type.equals("tool_use")
            && List.of("Write", "StrReplace", "Edit", "Delete", "MultiEdit").contains(name)) {
          String path = block.path("input").path("path").asText("");
          if (!path.isEmpty()) {
            reading.files.add(path);
          }
        } else if (type.equals("text") && !block.path("text").asText("").isBlank()) {
          reading.answer = block.path("text").asText();
        }
      }
    }
  }

  /** The texts of the blocks of {@code type} in {@code content}, one paragraph each. */
  private static String texts(JsonNode content, String type) {
    List<String> parts = new ArrayList<>();
    for (JsonNode block : content) {
      if (block.path("type").asText().equals(type) && block.path("text").isTextual()) {
        parts.add(block.path("text").asText());
      }
    }
    return String.join("\n\n", parts);
  }
}
