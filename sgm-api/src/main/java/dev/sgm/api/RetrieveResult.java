package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The {@code retrieve} operation's result: one page of records, the count of every match, and the
 * cursor of the next page (null on the last page). No match is an empty page with {@code total} 0,
 * not an error.
 */
public record RetrieveResult(List<MemoryRecord> records, long total, String nextCursor) {
  public RetrieveResult {
    records = List.copyOf(records);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    ArrayNode array = json.putArray("records");
    records.forEach(r -> array.add(r.view()));
    json.put("total", total);
    if (nextCursor != null) {
      json.put("next_cursor", nextCursor);
    }
    return json;
  }
}
