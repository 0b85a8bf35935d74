package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The {@code changes} operation's result: events in commit order, and where to resume.
 *
 * @param next the cursor to send as {@code since} next time; resuming there never misses and never
 *     repeats an event
 */
public record ChangesResult(List<ChangeEvent> events, String next) {
  public ChangesResult {
    events = List.copyOf(events);
    Objects.requireNonNull(next, "next");
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    com.fasterxml.jackson.databind.node.ArrayNode array = json.putArray("events");
    events.forEach(e -> array.add(e.toJson()));
    json.put("next", next);
    return json;
  }

  public static ChangesResult fromJson(JsonNode json) {
    List<ChangeEvent> events = new ArrayList<>();
    json.path("events").forEach(e -> events.add(ChangeEvent.fromJson(e)));
    return new ChangesResult(events, json.path("next").asText());
  }
}
