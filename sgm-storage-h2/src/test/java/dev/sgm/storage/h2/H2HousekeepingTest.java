package dev.sgm.storage.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Scope;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The embedded store's file stays compact under single-record commits, and loses nothing. */
class H2HousekeepingTest {
  private static final Scope SCOPE = Scope.of("project", "housekeeping");
  private static final int RECORDS = 2000;

  private static Storage open(Path dir) {
    return new H2StorageProvider().create(Config.empty(), StorageContext.of(dir, false));
  }

  private static void store(Storage storage, String id) {
    StoredNotes.store(storage, SCOPE, id, "x".repeat(200));
  }

  private static void assertAllThere(Storage storage) {
    for (int i = 0; i < RECORDS; i++) {
      String id = "r" + i;
      var found = storage.find(SCOPE, id);
      assertTrue(found.isPresent(), id + " is missing");
      assertTrue(found.get().document().contains("\"" + id + "\""), found.get().document());
    }
  }

  @Test
  void chunksLeftByCommitsAreRewrittenAndTheFileShrinksWithNothingLost(@TempDir Path dir)
      throws Exception {
    Path file = dir.resolve("sgm.mv.db");
    long before;
    long after;
    try (Storage storage = open(dir)) {
      H2Housekeeping housekeeping = H2StorageProvider.dialectOf(storage).housekeeping();
      assertNotNull(housekeeping, "a file store is kept compact");
      // H2 leaves chunks younger than its retention time alone; the test does not wait for it.
      housekeeping.store().setRetentionTime(0);
      for (int i = 0; i < RECORDS; i++) {
        store(storage, "r" + i);
      }
      before = Files.size(file);
      for (int pass = 0; pass < 3; pass++) {
        housekeeping.pass(true);
      }
      after = Files.size(file);
      assertTrue(
          after * 4 < before,
          "the file was " + before + " bytes after the commits and still " + after + " after");
      assertAllThere(storage);
      store(storage, "after-compaction");
    }
    try (Storage storage = open(dir)) {
      assertAllThere(storage);
      assertTrue(storage.find(SCOPE, "after-compaction").isPresent());
    }
  }

  @Test
  void aStoreInMemoryHasNoFileToKeep(@TempDir Path dir) {
    try (Storage storage =
        new H2StorageProvider().create(Config.empty(), StorageContext.of(dir, true))) {
      assertNull(H2StorageProvider.dialectOf(storage).housekeeping());
      store(storage, "r");
      assertEquals(1, storage.find(SCOPE, "r").stream().count());
    }
  }
}
