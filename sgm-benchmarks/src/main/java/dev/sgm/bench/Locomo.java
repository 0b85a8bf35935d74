package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The LoCoMo conversations as the recall measure of {@code shared/data/locomo-dev/README.md} uses
 * them: every turn one record ({@code "{speaker}: {text}"}, plus {@code " [shares a photo:
 * {blip_caption}]"} when the turn has a caption), and the questions that have evidence among the
 * turns.
 */
final class Locomo {
  private static final Pattern SESSION = Pattern.compile("session_(\\d+)");

  private Locomo() {}

  /** One turn of a conversation, as it is stored: its {@code dia_id} and its content. */
  record Turn(String id, String content) {}

  /** A question and the ids of the turns that answer it (only ids that are turns). */
  record Question(String text, Set<String> evidence) {}

  /** One conversation file: its name (the file's, without {@code .json}), turns and questions. */
  record Conversation(String name, List<Turn> turns, List<Question> questions) {}

  /** Every {@code *.json} conversation in {@code dir}, by file name. */
  static List<Conversation> read(Path dir) throws IOException {
    List<Conversation> conversations = new ArrayList<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().endsWith(".json")).sorted().toList()) {
        String name = file.getFileName().toString().replaceFirst("\\.json$", "");
        conversations.add(parse(name, Json.parse(Files.readString(file))));
      }
    }
    return conversations;
  }

  /** One conversation from its JSON: sessions {@code session_N} in order of N, then {@code qa}. */
  static Conversation parse(String name, JsonNode json) {
    List<Map.Entry<Integer, JsonNode>> sessions = new ArrayList<>();
    for (Map.Entry<String, JsonNode> field : json.properties()) {
      Matcher m = SESSION.matcher(field.getKey());
      if (m.matches() && field.getValue().isArray()) {
        sessions.add(Map.entry(Integer.parseInt(m.group(1)), field.getValue()));
      }
    }
    sessions.sort(Map.Entry.comparingByKey(Comparator.naturalOrder()));
    List<Turn> turns = new ArrayList<>();
    Set<String> ids = new LinkedHashSet<>();
    for (Map.Entry<Integer, JsonNode> session : sessions) {
      for (JsonNode turn : session.getValue()) {
        String content = turn.path("speaker").asText() + ": " + turn.path("text").asText();
        String caption = turn.path("blip_caption").asText("");
        if (!caption.isEmpty()) {
          content += " [shares a photo: " + caption + "]";
        }
        String id = turn.path("dia_id").asText();
        if (ids.add(id)) {
          turns.add(new Turn(id, content));
        }
      }
    }
    List<Question> questions = new ArrayList<>();
    for (JsonNode qa : json.path("qa")) {
      // Evidence ids are taken as written: an entry that is not a turn id (a few are malformed,
      // e.g. "D8:6; D9:17") is not counted, as the README's figures and its 996 questions do.
      Set<String> evidence = new LinkedHashSet<>();
      for (JsonNode id : qa.path("evidence")) {
        if (ids.contains(id.asText())) {
          evidence.add(id.asText());
        }
      }
      if (!evidence.isEmpty()) {
        questions.add(new Question(qa.path("question").asText(), Set.copyOf(evidence)));
      }
    }
    return new Conversation(name, List.copyOf(turns), List.copyOf(questions));
  }
}
