package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code store} operation's result.
 *
 * @param record the record as stored, server-set fields included
 * @param created true when no live record existed at (scope, id)
 * @param changed false when the store was a no-op because the same document was already stored
 */
public record StoreResult(MemoryRecord record, boolean created, boolean changed) {
  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.set("record", record.view());
    json.put("created", created);
    json.put("changed", changed);
    return json;
  }
}
