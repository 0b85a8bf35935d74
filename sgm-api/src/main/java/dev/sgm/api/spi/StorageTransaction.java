package dev.sgm.api.spi;

import dev.sgm.api.Scope;
import java.util.Optional;

/** The operations available inside one storage transaction. */
public interface StorageTransaction {
  /** The row at (scope, id), hidden (deleted) rows included, locked until the transaction ends. */
  Optional<StoredRecord> findForUpdate(Scope scope, String id);

  /** Inserts a new row, or replaces the row at the same (scope, id) with its index entries. */
  void put(StoredRecord record);

  /** Physically removes the row at (scope, id) and its index entries. */
  void remove(Scope scope, String id);
}
