package dev.sgm.storage.h2;

import dev.sgm.api.Scope;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.WriteLog;

/** Stores of one new note each, as the engine makes them: a read for update, then the write. */
final class StoredNotes {
  private StoredNotes() {}

  /** Stores note {@code id} in {@code scope}, its document carrying {@code content}; one commit. */
  static void store(Storage storage, Scope scope, String id, String content) {
    storage.inTransaction(
        tx -> {
          tx.findForUpdate(scope, id);
          tx.put(
              StoredRecord.toWrite(
                  scope,
                  id,
                  "note",
                  1,
                  1_000_000,
                  1_000_000,
                  false,
                  "{\"id\":\"" + id + "\",\"content\":\"" + content + "\"}",
                  RecordIndex.NONE),
              new WriteLog(Change.Kind.STORED, "tester", false));
          return null;
        });
  }
}
