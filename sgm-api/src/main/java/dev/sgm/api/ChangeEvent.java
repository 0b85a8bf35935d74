package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Objects;

/**
 * One event of the change feed: a committed write, at its place in commit order. It carries no
 * content or data; a watcher reads what it needs.
 *
 * @param cursor where the feed resumes after this event
 * @param kind {@code stored}, {@code deleted}, {@code restored} or {@code expired}
 * @param agent who wrote it: the authenticated principal, else the record's agent
 */
public record ChangeEvent(
    String cursor,
    String kind,
    Scope scope,
    String id,
    String type,
    long version,
    String agent,
    Instant at) {
  public ChangeEvent {
    Objects.requireNonNull(cursor, "cursor");
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(id, "id");
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.put("cursor", cursor);
    json.put("kind", kind);
    json.set("scope", scope.toJson());
    json.put("id", id);
    json.put("type", type);
    json.put("version", version);
    json.put("agent", agent);
    json.put("at", at == null ? null : Timestamps.format(at));
    return json;
  }

  public static ChangeEvent fromJson(JsonNode json) {
    return new ChangeEvent(
        json.path("cursor").asText(),
        json.path("kind").asText(),
        Scope.fromJson(json.get("scope"), "scope", ErrorCode.INVALID_REQUEST),
        json.path("id").asText(),
        json.path("type").asText(null),
        json.path("version").asLong(),
        json.path("agent").asText(null),
        Timestamps.tryParse(json.path("at").asText(null)));
  }
}
