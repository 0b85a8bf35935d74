package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * A client that degrades gracefully, as the specification asks of consumers: before relying on a
 * profile it discovers whether the peer advertises it, and when it does not, it stores a record of
 * that profile's types as a plain {@code note} instead of failing. The original type is kept in
 * {@code metadata.sgm_degraded_from}, and the response says so in a {@code degraded} object.
 */
public final class DegradingClient implements SgmClient {
  /** The standard profiles and the record types they own. */
  private static final Map<String, String> OWNER =
      Map.ofEntries(
          Map.entry("decision", "collaboration"),
          Map.entry("rule", "collaboration"),
          Map.entry("status", "collaboration"),
          Map.entry("task", "collaboration"),
          Map.entry("handoff", "collaboration"),
          Map.entry("symbol", "code"),
          Map.entry("code_reference", "code"),
          Map.entry("diff", "code"));

  private final SgmClient peer;
  private volatile Set<String> capabilities;

  public DegradingClient(SgmClient peer) {
    this.peer = peer;
  }

  /** The capabilities the peer advertises, discovered once. */
  public Set<String> capabilities() {
    Set<String> known = capabilities;
    if (known == null) {
      known = new HashSet<>();
      for (JsonNode capability : peer.call("discover", Json.object()).path("capabilities")) {
        known.add(capability.asText());
      }
      capabilities = known;
    }
    return known;
  }

  @Override
  public JsonNode call(String operation, JsonNode request) {
    if (operation.equals("store") && request.path("record").isObject()) {
      ObjectNode copy = (ObjectNode) request.deepCopy();
      String reason = degrade((ObjectNode) copy.get("record"));
      return reason == null
          ? peer.call(operation, request)
          : mark(peer.call(operation, copy), reason);
    }
    if (operation.equals("store_batch") && request.path("records").isArray()) {
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
    String profile = OWNER.get(type);
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
