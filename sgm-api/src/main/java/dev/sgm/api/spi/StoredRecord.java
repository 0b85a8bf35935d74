package dev.sgm.api.spi;

import dev.sgm.api.Scope;
import java.util.Objects;

/**
 * One row as the storage keeps it: identity, the fields it orders and filters by, the document
 * text, and the index entries the engine derived from the document.
 *
 * @param document the record's JSON text, exactly as it is returned
 * @param deleted true for a hidden (soft-deleted) row
 * @param rowKey the storage's key of the row, stable while the row exists (0 for a row the engine
 *     is about to write)
 * @param createdSeq the write sequence number of the write that created (or re-created) the row (0
 *     for a row the engine is about to write)
 */
public record StoredRecord(
    Scope scope,
    String id,
    String type,
    long version,
    long createdMicros,
    long updatedMicros,
    boolean deleted,
    String document,
    RecordIndex index,
    long rowKey,
    long createdSeq) {
  public StoredRecord {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(document, "document");
    Objects.requireNonNull(index, "index");
  }

  /** A row for the engine to write; the storage gives it its row key and sequence numbers. */
  public static StoredRecord toWrite(
      Scope scope,
      String id,
      String type,
      long version,
      long createdMicros,
      long updatedMicros,
      boolean deleted,
      String document,
      RecordIndex index) {
    return new StoredRecord(
        scope, id, type, version, createdMicros, updatedMicros, deleted, document, index, 0, 0);
  }
}
