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
