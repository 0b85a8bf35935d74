package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.SgmException;

/**
 * Checks profiles apply to the fields of the record types they own, so that every profile words the
 * same mistake the same way: {@code invalid_record} naming the field by its full path.
 */
public final class DataFields {
  private DataFields() {}

  /** The record's {@code data}, which a record of a profile-owned type must carry as an object. */
  public static ObjectNode data(ObjectNode record) {
    JsonNode value = record.get("data");
    if (value == null || !value.isObject()) {
      throw SgmException.invalidRecord(
          "data", "is required for a " + record.path("type").asText() + " record");
    }
    return (ObjectNode) value;
  }

  /**
   * {@code object.field} must be a non-empty string, or may be absent when not {@code required};
   * {@code name} is the field's full path in the record, e.g. {@code data.from.path}.
   */
  public static void text(ObjectNode object, String field, String name, boolean required) {
    JsonNode node = object.get(field);
    if (node == null) {
      if (required) {
        throw SgmException.invalidRecord(name, "is required");
      }
    } else if (!node.isTextual() || node.textValue().isBlank()) {
      throw SgmException.invalidRecord(name, "must be a non-empty string");
    }
  }
}
