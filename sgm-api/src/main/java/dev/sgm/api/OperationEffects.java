package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * What running an operation does, as its declaration states it: whether it only reads, whether
 * running it twice with the same request has the effect of running it once, and whether it may
 * remove or overwrite what is stored. Whatever needs to know (sending a request again after its
 * answer was lost, MCP's tool annotations, help texts) reads it here rather than listing operations
 * by name.
 *
 * @param readOnly changes nothing
 * @param idempotent a second run with the same request changes nothing more than the first did
 * @param destructive may remove or overwrite stored records (rather than only add to them)
 * @param conditions request fields that make one request not idempotent after all: a write guarded
 *     by {@code expected_version} answers {@code conflict} when sent again after it succeeded
 */
public record OperationEffects(
    boolean readOnly, boolean idempotent, boolean destructive, List<String> conditions) {

  /** Reads only. */
  public static final OperationEffects READ = new OperationEffects(true, true, false, List.of());

  /**
   * Writes, and may not be run twice safely: the default for an operation that declares nothing.
   */
  public static final OperationEffects WRITE = new OperationEffects(false, false, false, List.of());

  public OperationEffects {
    conditions = List.copyOf(conditions);
    if (readOnly && destructive) {
      throw new IllegalArgumentException("an operation that only reads destroys nothing");
    }
  }

  /** Writes, and a second run with the same request changes nothing more. */
  public static OperationEffects idempotentWrite(boolean destructive, String... conditions) {
    return new OperationEffects(false, true, destructive, List.of(conditions));
  }

  /** Writes, and each run may change something again. */
  public static OperationEffects write(boolean destructive) {
    return new OperationEffects(false, false, destructive, List.of());
  }

  /**
   * Whether sending {@code request} again, after its answer was lost, leaves what the first send
   * would have left and answers as it would have.
   */
  public boolean sameEffectIfSentAgain(JsonNode request) {
    if (readOnly) {
      return true;
    }
    if (!idempotent) {
      return false;
    }
    for (String condition : conditions) {
      if (request != null && request.has(condition) && !request.get(condition).isNull()) {
        return false;
      }
    }
    return true;
  }

  /** As discovery's operation entries carry it. */
  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.put("read_only", readOnly);
    json.put("idempotent", idempotent);
    json.put("destructive", destructive);
    if (!conditions.isEmpty()) {
      conditions.forEach(json.putArray("not_idempotent_with")::add);
    }
    return json;
  }

  /** From discovery's JSON; what it does not say is taken as {@link #WRITE}'s. */
  public static OperationEffects fromJson(JsonNode json) {
    if (json == null || !json.isObject()) {
      return WRITE;
    }
    List<String> conditions = new java.util.ArrayList<>();
    json.path("not_idempotent_with").forEach(c -> conditions.add(c.asText()));
    boolean readOnly = json.path("read_only").asBoolean(false);
    return new OperationEffects(
        readOnly,
        json.path("idempotent").asBoolean(false),
        !readOnly && json.path("destructive").asBoolean(false),
        conditions);
  }
}
