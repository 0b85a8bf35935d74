package dev.sgm.profile.collaboration;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;

/**
 * The JSON Schemas of the collaboration operations' responses, of which there are three shapes: a
 * store's result (the record changed), a list of records ({@link Requests#list}), and what {@code
 * handoffs.resume} gathers. Every object stays open to fields a later version adds.
 */
final class Responses {
  private Responses() {}

  /**
   * A record as stored (memory.schema.json, with the server-set fields), or as a caller below its
   * sensitivity level sees it: without content, data and reference, and with {@code redacted}.
   *
   * @param type the record type it always has, or null for any
   * @param description what it is, or null
   */
  static ObjectNode storedRecord(String type, String description) {
    ObjectNode record = Json.object();
    if (description != null) {
      record.put("description", description);
    }
    record.putArray("allOf").add(JsonSchemas.ref(JsonSchemas.MEMORY_SCHEMA));
    ObjectNode properties = record.putObject("properties");
    if (type != null) {
      properties.set("type", Json.object().put("const", type));
    }
    properties.set(
        "redacted",
        Json.object()
            .put("const", true)
            .put(
                "description",
                "Present when content, data and reference are withheld from this caller."));
    record
        .putArray("required")
        .add("id")
        .add("type")
        .add("scope")
        .add("provenance")
        .add("created_at")
        .add("updated_at")
        .add("version")
        .add("schema_version");
    return record;
  }

  /** What an operation that changes one record of {@code type} answers: the store's result. */
  static ObjectNode stored(String type) {
    return JsonSchemas.object()
        .required("record", storedRecord(type, "The " + type + " as stored now."))
        .required("created", JsonSchemas.bool("True when no live record existed."))
        .required("changed", JsonSchemas.bool("False when the same document was already stored."))
        .build();
  }

  /** What {@link Requests#list} answers: the records of {@code type} under {@code field}. */
  static ObjectNode list(String field, String type, String description) {
    return JsonSchemas.object().required(field, records(type, description)).build();
  }

  /** An array of stored records. */
  private static ObjectNode records(String type, String description) {
    ObjectNode array = Json.object().put("type", "array").put("description", description);
    array.set("items", storedRecord(type, type == null ? null : "A " + type + "."));
    return array;
  }

  /** What {@code handoffs.resume} answers. */
  static ObjectNode resume() {
    return JsonSchemas.object()
        .required("handoff", storedRecord("handoff", "The handoff."))
        .required(
            "records",
            records(null, "The records its context and links name that exist, once each."))
        .required(
            "missing",
            JsonSchemas.strings("The references (ids or qualified ids) to no record readable."))
        .build();
  }
}
