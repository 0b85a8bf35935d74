package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The {@code discover} operation's request: optionally, the protocol versions the client accepts.
 */
public record DiscoverRequest(List<String> acceptVersions) {
  public DiscoverRequest {
    acceptVersions = List.copyOf(acceptVersions);
  }

  public static DiscoverRequest any() {
    return new DiscoverRequest(List.of());
  }

  public static DiscoverRequest fromJson(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    List<String> versions = reader.optionalStringList("accept_versions");
    reader.finish();
    return new DiscoverRequest(versions);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    if (!acceptVersions.isEmpty()) {
      acceptVersions.forEach(json.putArray("accept_versions")::add);
    }
    return json;
  }
}
