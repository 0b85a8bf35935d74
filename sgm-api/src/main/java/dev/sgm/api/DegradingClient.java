package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A client that degrades gracefully, as the specification asks of consumers: before relying on a
 * profile it discovers whether the peer advertises it, and when it does not, it stores a record of
 * that profile's types as a plain {@code note} instead of failing. The original type is kept in
 * {@code metadata.sgm_degraded_from}, and the response says so in a {@code degraded} object.
 *
 * <p>Which profile owns which type comes from discovery too: from the {@code record_types} of a
 * discovery document the consumer was written against (for example that of an embedded engine with
 * the profiles it expects), since a peer without a profile cannot say what that profile owns.
 */
public final class DegradingClient implements SgmClient {
  private final SgmClient peer;
  private final Map<String, String> expectedOwners;
  private volatile Set<String> capabilities;

  /**
   * @param peer the server to talk to
   * @param expected a discovery document whose {@code record_types} name the profile of each type
   *     the consumer relies on
   */
  public DegradingClient(SgmClient peer, JsonNode expected) {
    this.peer = peer;
    this.expectedOwners = owners(expected);
  }

  /** Each record type's owning profile, as a discovery document's {@code record_types} lists. */
  public static Map<String, String> owners(JsonNode discovery) {
    Map<String, String> owners = new LinkedHashMap<>();
    discovery
        .path("record_types")
        .properties()
        .forEach(e -> owners.put(e.getKey(), e.getValue().path("profile").asText()));
    return Map.copyOf(owners);
  }

  /** The capabilities the peer advertises, discovered once. */
  public Set<String> capabilities() {
    Set<String> known = capabilities;
    if (known == null) {
      known = new HashSet<>();
      for (JsonNode capability :
          peer.call(Operations.DISCOVER, Json.object()).path("capabilities")) {
        known.add(capability.asText());
      }
      capabilities = known;
    }
    return known;
  }

  @Override
  public JsonNode call(String operation, JsonNode request) {
    if (operation.equals(Operations.STORE) && request.path("record").isObject()) {
      ObjectNode copy = (ObjectNode) request.deepCopy();
      String reason = degrade((ObjectNode) copy.get("record"));
      return reason == null
          ? peer.call(operation, request)
          : mark(peer.call(operation, copy), reason);
    }
    if (operation.equals(Operations.STORE_BATCH) && request.path("records").isArray()) {
      ObjectNode copy = (ObjectNode) request.deepCopy();
      String reason = null;
      for (JsonNode record : (ArrayNode) copy.get("records")) {
        if (record.isObject()) {
          String degraded = degrade((ObjectNode) record);
          reason = reason == null ? degraded : reason;
        }
      }
      return reason == null
          ? peer.call(operation, request)
          : mark(peer.call(operation, copy), reason);
    }
    return peer.call(operation, request);
  }

  /** Turns a record of an unadvertised profile's type into a note; returns why, or null. */
  private String degrade(ObjectNode record) {
    String type = record.path("type").asText();
    String profile = expectedOwners.get(type);
    if (profile == null || capabilities().contains(profile)) {
      return null;
    }
    record.put("type", "note");
    JsonNode metadata = record.get("metadata");
    ObjectNode meta =
        metadata != null && metadata.isObject()
            ? (ObjectNode) metadata
            : record.putObject("metadata");
    meta.put("sgm_degraded_from", type);
    return "the peer does not advertise "
        + profile
        + ", so "
        + type
        + " records are stored as notes";
  }

  private static JsonNode mark(JsonNode response, String reason) {
    if (response.isObject()) {
      ObjectNode degraded = ((ObjectNode) response).putObject("degraded");
      degraded.put("to", "note");
      degraded.put("reason", reason);
    }
    return response;
  }
}
