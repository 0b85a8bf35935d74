package dev.sgm.profile.history;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;

/**
 * The JSON Schemas of the history operations' responses, and the parts they share: a record as
 * stored, a version of one, a snapshot and a store's result. Each describes what {@link
 * HistoryProfile} builds; a field it may leave out is optional here, and every object stays open to
 * fields a later version adds.
 */
final class Responses {
  private Responses() {}

  /**
   * A record as stored (memory.schema.json, with the server-set fields), or as a caller below its
   * sensitivity level sees it: without content, data and reference, and with {@code redacted}.
   */
  static ObjectNode storedRecord(String description) {
    ObjectNode record = Json.object();
    record.put("description", description);
    record.putArray("allOf").add(JsonSchemas.ref(JsonSchemas.MEMORY_SCHEMA));
    record
        .putObject("properties")
        .set(
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

  /** A whole number from 0. */
  static ObjectNode count(String description) {
    return Json.object().put("type", "integer").put("minimum", 0).put("description", description);
  }

  /** A version number. */
  static ObjectNode versionNumber(String description) {
    return Json.object().put("type", "integer").put("minimum", 1).put("description", description);
  }

  /** One entry of a record's version log, as {@code history.versions} lists them. */
  static ObjectNode version() {
    return JsonSchemas.object()
        .description("One version of the record, or its deletion.")
        .required("version", versionNumber("The version number."))
        .required("deleted", JsonSchemas.bool("True for a deletion (the record as deleted)."))
        .required("written_at", JsonSchemas.dateTime("When it was written."))
        .required(
            "writer",
            JsonSchemas.string(
                "Who wrote it: the authenticated principal, else the provenance agent."))
        .required("record", storedRecord("The record as this version has it."))
        .part();
  }

  /** A snapshot as described in every snapshots.* response. */
  static ObjectNode snapshot() {
    return JsonSchemas.object()
        .description("A named state of a scope.")
        .required("name", JsonSchemas.string("The snapshot's name."))
        .required("scope", JsonSchemas.scope("The scope it was taken of."))
        .required("descendants", JsonSchemas.bool("Whether it includes the narrower scopes."))
        .required("created_at", JsonSchemas.dateTime("When it was taken."))
        .required("created_by", JsonSchemas.string("Who took it."))
        .part();
  }

  /** What a store through the engine answers: the record as stored, created and changed. */
  static JsonSchemas.ObjectSchema storeResult() {
    return JsonSchemas.object()
        .required("record", storedRecord("The record as stored now."))
        .required("created", JsonSchemas.bool("True when no live record existed."))
        .required("changed", JsonSchemas.bool("False when the same document was already stored."));
  }

  // ---- the operations' responses

  static ObjectNode versions() {
    ObjectNode page = Json.object().put("type", "array");
    page.put("description", "Newest first.");
    page.set("items", version());
    return JsonSchemas.object()
        .required("versions", page)
        .optional(
            "next_cursor",
            JsonSchemas.string("Send as cursor for the next page; absent on the last page."))
        .build();
  }

  static ObjectNode read() {
    ObjectNode schema = Json.object().put("$schema", JsonSchemas.DIALECT);
    schema.setAll(version());
    return schema;
  }

  static ObjectNode restore() {
    return storeResult()
        .required("restored_from", versionNumber("The version that was made current again."))
        .build();
  }

  static ObjectNode undelete() {
    return storeResult().build();
  }

  static ObjectNode createSnapshot() {
    return JsonSchemas.object().required("snapshot", snapshot()).build();
  }

  static ObjectNode listSnapshots() {
    ObjectNode list = Json.object().put("type", "array").put("description", "Newest first.");
    list.set("items", snapshot());
    return JsonSchemas.object().required("snapshots", list).build();
  }

  static ObjectNode retrieveSnapshot() {
    ObjectNode records = Json.object().put("type", "array");
    records.put("description", "One page of the records as they were at the snapshot.");
    records.set("items", storedRecord("A record as it was at the snapshot."));
    return JsonSchemas.object()
        .required("records", records)
        .required("total", count("Every match, not just this page."))
        .optional(
            "next_cursor",
            JsonSchemas.string("Send as the query's cursor for the next page; absent on the last."))
        .build();
  }

  static ObjectNode restoreSnapshot() {
    return JsonSchemas.object()
        .required("snapshot", snapshot())
        .required("restored", count("Records stored again as they were."))
        .required("deleted", count("Records deleted: created since, or deleted then."))
        .required("unchanged", count("Records already as they were."))
        .build();
  }
}
