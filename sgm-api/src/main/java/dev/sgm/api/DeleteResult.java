package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code delete} operation's result.
 *
 * @param soft true when the record was kept (history is on) and only hidden, false when it was
 *     removed
 */
public record DeleteResult(boolean soft) {
  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.put("deleted", true);
    json.put("soft", soft);
    return json;
  }
}
