package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code read} operation's result.
 *
 * @param record the record
 * @param resolved whether resolution was asked for
 * @param content the referenced content when resolved: text, or base64 when {@code binary} is true
 * @param binary true when the content is binary and {@code content} holds it base64-encoded
 * @param unresolved why the content could not be resolved, else null
 */
public record ReadResult(
    MemoryRecord record, boolean resolved, String content, boolean binary, String unresolved) {
  /** A plain read, nothing resolved. */
  public static ReadResult of(MemoryRecord record) {
    return new ReadResult(record, false, null, false, null);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.set("record", record.view());
    if (resolved) {
      if (content != null) {
        json.put(binary ? "content_base64" : "content", content);
      } else {
        json.putNull("content");
        json.put("unresolved", unresolved);
      }
    }
    return json;
  }
}
