package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The {@code delete} operation's request: one record by exact scope and id, optionally
 * version-guarded.
 */
public record DeleteRequest(Scope scope, String id, Long expectedVersion) {
  public DeleteRequest {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(id, "id");
  }

  public static DeleteRequest fromJson(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    Scope scope = reader.requireScope("scope");
    String id = reader.requireString("id");
    Long expected = reader.optionalLong("expected_version", 1, Long.MAX_VALUE);
    reader.finish();
    return new DeleteRequest(scope, id, expected);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.set("scope", scope.toJson());
    json.put("id", id);
    if (expectedVersion != null) {
      json.put("expected_version", expectedVersion);
    }
    return json;
  }
}
