package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Objects;

/**
 * The {@code store} operation's request: the record to create or replace at its (scope, id), with
 * optional optimistic-concurrency guards.
 *
 * @param record the record as the client wrote it (validated by the engine, not here)
 * @param expectedVersion when set, the stored version must equal it or the store fails with {@code
 *     conflict}
 * @param ifAbsent when true, an existing record makes the store fail with {@code conflict}
 */
public record StoreRequest(JsonNode record, Long expectedVersion, boolean ifAbsent) {
  public StoreRequest {
    Objects.requireNonNull(record, "record");
  }

  /** A plain create-or-replace. */
  public static StoreRequest of(ObjectNode record) {
    return new StoreRequest(record, null, false);
  }

  public static StoreRequest fromJson(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    JsonNode record = reader.raw("record");
    if (record == null) {
      throw SgmException.invalidRequest("record", "is required");
    }
    Long expected = reader.optionalLong("expected_version", 1, Long.MAX_VALUE);
    boolean ifAbsent = reader.optionalBoolean("if_absent", false);
    reader.finish();
    return new StoreRequest(record, expected, ifAbsent);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.set("record", record);
    if (expectedVersion != null) {
      json.put("expected_version", expectedVersion);
    }
    if (ifAbsent) {
      json.put("if_absent", true);
    }
    return json;
  }
}
