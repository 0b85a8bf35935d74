package dev.sgm.profile.collaboration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.DataFields;
import java.util.List;

/** The checks the owned types make of their {@code data} fields, and how they read a state. */
final class DataChecks {
  private DataChecks() {}

  /**
   * A state field of a record that may carry no data (CONTRACT §7): a task or handoff without one
   * is open, a decision proposed.
   */
  static String state(MemoryRecord record, String field, String absent) {
    JsonNode value = record.data().path(field);
    return value.isTextual() ? value.textValue() : absent;
  }

  static void text(ObjectNode data, String field, boolean required) {
    DataFields.text(data, field, "data." + field, required);
  }

  static void oneOf(ObjectNode data, String field, List<String> values, boolean required) {
    text(data, field, required);
    JsonNode node = data.get(field);
    if (node != null && !values.contains(node.textValue())) {
      throw SgmException.invalidRecord(
          "data." + field, "'" + node.textValue() + "' is not one of " + values);
    }
  }

  static void stringList(ObjectNode data, String field) {
    JsonNode node = data.get(field);
    if (node == null) {
      return;
    }
    if (!node.isArray()) {
      throw SgmException.invalidRecord("data." + field, "must be an array of strings");
    }
    for (int i = 0; i < node.size(); i++) {
      if (!node.get(i).isTextual()) {
        throw SgmException.invalidRecord("data." + field + "[" + i + "]", "must be a string");
      }
    }
  }

  static void bool(ObjectNode data, String field) {
    JsonNode node = data.get(field);
    if (node != null && !node.isBoolean()) {
      throw SgmException.invalidRecord("data." + field, "must be true or false");
    }
  }
}
