package dev.sgm.storage.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code storage.h2.sync}: what reaches the disk before a write is acknowledged. */
class H2SyncTest {
  private static final Scope SCOPE = Scope.of("project", "sync");

  private static Storage open(Path dir, String sync) {
    Config config =
        sync == null ? Config.empty() : Config.empty().with(H2StorageProvider.SYNC, sync);
    return new H2StorageProvider()
        .create(config, StorageContext.of(dir, false), ForceCountingFilePath.prefix());
  }

  private static void store(Storage storage, String id) {
    StoredNotes.store(storage, SCOPE, id, "");
  }

  @Test
  void withFsyncEveryAcknowledgedStoreHasBeenForcedToTheDisk(@TempDir Path dir) {
    try (Storage storage = open(dir, "fsync")) {
      assertTrue(storage.describe().contains("fsync"), storage.describe());
      for (int i = 0; i < 20; i++) {
        long before = ForceCountingFilePath.forces();
        store(storage, "r" + i);
        assertTrue(
            ForceCountingFilePath.forces() > before,
            "store " + i + " was acknowledged without a force of the store's file");
      }
      long before = ForceCountingFilePath.forces();
      storage.putContent(
          new dev.sgm.api.ContentReference("ab".repeat(32), "utf-8", 2),
          "hi".getBytes(java.nio.charset.StandardCharsets.UTF_8));
      assertTrue(ForceCountingFilePath.forces() > before, "content acknowledged unforced");
    }
  }

  @Test
  void byDefaultAStoreIsLeftToTheOperatingSystem(@TempDir Path dir) {
    try (Storage storage = open(dir, null)) {
      store(storage, "warm-up");
      long before = ForceCountingFilePath.forces();
      for (int i = 0; i < 20; i++) {
        store(storage, "r" + i);
      }
      assertEquals(before, ForceCountingFilePath.forces(), "the default forced the file");
      assertTrue(!storage.describe().contains("fsync"), storage.describe());
    }
  }

  @Test
  void concurrentCommittersShareSyncs(@TempDir Path dir) throws Exception {
    int threads = 16;
    int each = 25;
    try (Storage storage = open(dir, "fsync")) {
      store(storage, "warm-up");
      H2Dialect h2 = H2StorageProvider.dialectOf(storage);
      long syncsBefore = h2.syncs();
      long forcesBefore = ForceCountingFilePath.forces();
      CyclicBarrier start = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          int thread = t;
          done.add(
              pool.submit(
                  () -> {
                    start.await();
                    for (int i = 0; i < each; i++) {
                      store(storage, "t" + thread + "-" + i);
                    }
                    return null;
                  }));
        }
        for (Future<?> f : done) {
          f.get();
        }
      } finally {
        pool.shutdown();
      }
      long syncs = h2.syncs() - syncsBefore;
      long forces = ForceCountingFilePath.forces() - forcesBefore;
      int commits = threads * each;
      assertTrue(syncs >= 1, "no sync at all");
      assertTrue(
          syncs < commits * 3 / 4,
          syncs + " syncs for " + commits + " concurrent commits: they were not shared");
      assertTrue(forces >= syncs, forces + " forces for " + syncs + " syncs");
      assertEquals(commits + 1, storage.countLive());
    }
  }

  @Test
  void anUnknownSyncSettingIsRefusedWithTheChoices(@TempDir Path dir) {
    SgmException e = assertThrows(SgmException.class, () -> open(dir, "always"));
    assertTrue(e.getMessage().contains("storage.h2.sync"), e.getMessage());
    assertTrue(e.getMessage().contains("os or fsync"), e.getMessage());
  }
}
