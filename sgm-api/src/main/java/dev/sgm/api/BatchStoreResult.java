package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/** The {@code store_batch} operation's result: one entry per record, in request order. */
public record BatchStoreResult(List<Item> results) {
  /** The outcome for one record of the batch. */
  public record Item(Scope scope, String id, long version, boolean created, boolean changed) {}

  public BatchStoreResult {
    results = List.copyOf(results);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    ArrayNode array = json.putArray("results");
    for (Item item : results) {
      ObjectNode entry = array.addObject();
      entry.set("scope", item.scope().toJson());
      entry.put("id", item.id());
      entry.put("version", item.version());
      entry.put("created", item.created());
      entry.put("changed", item.changed());
    }
    return json;
  }
}
