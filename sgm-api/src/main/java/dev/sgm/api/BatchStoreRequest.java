package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The {@code store_batch} operation's request: up to {@link #MAX_RECORDS} records stored atomically
 * (one invalid record fails the whole batch, naming its index).
 */
public record BatchStoreRequest(List<JsonNode> records, boolean ifAbsent) {
  /** The most records one batch may carry. */
  public static final int MAX_RECORDS = 1000;

  public BatchStoreRequest {
    records = List.copyOf(records);
  }

  public static BatchStoreRequest fromJson(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    JsonNode array = reader.raw("records");
    if (array == null || !array.isArray()) {
      throw SgmException.invalidRequest("records", "is required and must be an array of records");
    }
    if (array.isEmpty()) {
      throw SgmException.invalidRequest("records", "must hold at least one record");
    }
    if (array.size() > MAX_RECORDS) {
      throw SgmException.invalidRequest(
          "records", "holds " + array.size() + " records; at most " + MAX_RECORDS + " are allowed");
    }
    boolean ifAbsent = reader.optionalBoolean("if_absent", false);
    reader.finish();
    List<JsonNode> records = new ArrayList<>();
    array.forEach(records::add);
    return new BatchStoreRequest(records, ifAbsent);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.putArray("records").addAll(records);
    if (ifAbsent) {
      json.put("if_absent", true);
    }
    return json;
  }
}
