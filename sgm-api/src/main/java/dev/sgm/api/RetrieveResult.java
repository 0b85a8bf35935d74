package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The {@code retrieve} operation's result: one page of records, the count of every match, and the
 * cursor of the next page (null on the last page). No match is an empty page with {@code total} 0,
 * not an error. A relevance query adds each record's score and says how it was answered.
 *
 * @param scores the relevance of each record, aligned with {@code records} and descending; null
 *     when the query was not ranked by relevance
 * @param retrieval how a relevance query was answered (its mode, and anything the answer leaves
 *     out, such as records not yet embedded); null otherwise
 */
public record RetrieveResult(
    List<MemoryRecord> records,
    long total,
    String nextCursor,
    List<Double> scores,
    ObjectNode retrieval) {
  public RetrieveResult {
    records = List.copyOf(records);
    scores = scores == null ? null : List.copyOf(scores);
  }

  /** A result without scores. */
  public RetrieveResult(List<MemoryRecord> records, long total, String nextCursor) {
    this(records, total, nextCursor, null, null);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    ArrayNode array = json.putArray("records");
    records.forEach(r -> array.add(r.view()));
    json.put("total", total);
    if (nextCursor != null) {
      json.put("next_cursor", nextCursor);
    }
    if (scores != null) {
      ArrayNode values = json.putArray("scores");
      scores.forEach(values::add);
    }
    if (retrieval != null) {
      json.set("retrieval", retrieval);
    }
    return json;
  }
}
