package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The {@code read} operation's request: one record by exact scope and id.
 *
 * @param resolve when true and the record carries a content reference, the response includes the
 *     content or says explicitly why it cannot
 */
public record ReadRequest(Scope scope, String id, boolean resolve) {
  public ReadRequest {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(id, "id");
  }

  public static ReadRequest fromJson(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    Scope scope = reader.requireScope("scope");
    String id = reader.requireString("id");
    boolean resolve = reader.optionalBoolean("resolve", false);
    reader.finish();
    return new ReadRequest(scope, id, resolve);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.set("scope", scope.toJson());
    json.put("id", id);
    if (resolve) {
      json.put("resolve", true);
    }
    return json;
  }
}
