package dev.sgm.api.spi;

import dev.sgm.api.Scope;
import java.util.Objects;

/**
 * One row as the storage keeps it: identity, the fields it orders and filters by, the document
 * text, and the index entries the engine derived from the document.
 *
 * @param document the record's JSON text, exactly as it is returned
 * @param deleted true for a hidden (soft-deleted) row
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
    RecordIndex index) {
  public StoredRecord {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(document, "document");
    Objects.requireNonNull(index, "index");
  }
}
