package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.DeleteResult;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.Scope;
import dev.sgm.api.StoreResult;
import java.util.Optional;

/**
 * The engine's writes inside one transaction, for profile operations that change several records at
 * once (restoring a snapshot, superseding decisions): either all of them happen or none. Every
 * write keeps the engine's rules: validation, versions, provenance, history.
 */
public interface RecordWriter {
  /** Stores a record as {@code store} would, without optimistic guards. */
  StoreResult store(JsonNode record);

  /**
   * Stores a record as {@link #store(JsonNode)} does, logging the write in the change feed as
   * {@code kind}: {@link Change.Kind#RESTORED} for a past version brought back, {@link
   * Change.Kind#EXPIRED} for a lapsed claim given back.
   */
  default StoreResult store(JsonNode record, Change.Kind kind) {
    return store(record);
  }

  /** Deletes a live record as {@code delete} would; {@code not_found} when there is none. */
  DeleteResult delete(Scope scope, String id);

  /** The live record at (scope, id), locked until the transaction ends. */
  Optional<MemoryRecord> read(Scope scope, String id);

  /** The storage transaction itself, for reading the version log and snapshots. */
  StorageTransaction storage();

  /**
   * This writer, its stores made in {@code agent}'s name when the caller has no principal (a
   * principal always writes as itself): the writer of a version that an operation makes for the
   * agent it names, such as a claim, is that agent, not the record's creator ({@code
   * provenance.agent}, which stays). {@code invalid_request} naming {@code agent} when it is not a
   * name an agent may have (blank, or longer than {@code provenance.agent} may be).
   */
  RecordWriter as(String agent);
}
