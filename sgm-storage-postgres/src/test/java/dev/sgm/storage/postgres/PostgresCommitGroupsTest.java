package dev.sgm.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.WriteLog;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Concurrent short units of work on PostgreSQL share commits: rows written by one transaction have
 * the same {@code xmin}, so fewer distinct ones than rows means stores shared a commit.
 */
class PostgresCommitGroupsTest {
  private static final Scope SCOPE = Scope.of("project", "groups");

  @Test
  @DisplayName("concurrent stores share commits, and a failing one among them fails alone")
  void concurrentStoresShareCommitsAndAFailureStaysAlone() throws Exception {
    String url = PostgresCluster.get().newDatabase();
    int callers = 16;
    int each = 25;
    AtomicInteger next = new AtomicInteger();
    AtomicInteger failed = new AtomicInteger();
    try (Storage storage = PostgresStorageTest.open(url)) {
      ExecutorService pool = Executors.newFixedThreadPool(callers);
      try {
        List<Future<?>> futures = new ArrayList<>();
        for (int c = 0; c < callers; c++) {
          futures.add(
              pool.submit(
                  () -> {
                    for (int i = 0; i < each; i++) {
                      int n = next.incrementAndGet();
                      if (n % 50 == 0) {
                        assertThrows(
                            SgmException.class, () -> store(storage, "r" + n, true), "r" + n);
                        failed.incrementAndGet();
                      } else {
                        store(storage, "r" + n, false);
                      }
                    }
                    return null;
                  }));
        }
        for (Future<?> future : futures) {
          future.get(120, TimeUnit.SECONDS);
        }
      } finally {
        pool.shutdownNow();
      }
      int stored = callers * each - failed.get();
      assertEquals(stored, storage.countLive(), "every acknowledged store, no failed one");
      assertEquals(stored, storage.changesAfter(0, 10_000).changes().size());
      int commits = distinctCommits(url);
      assertTrue(
          commits < stored / 2,
          stored + " stores committed in " + commits + " transactions: they did not share commits");
    }
  }

  private static void store(Storage storage, String id, boolean fail) {
    storage.inShortTransaction(
        tx -> {
          tx.findForUpdate(SCOPE, id);
          long micros = System.currentTimeMillis() * 1000;
          tx.put(
              StoredRecord.toWrite(
                  SCOPE,
                  id,
                  "note",
                  1,
                  micros,
                  micros,
                  false,
                  "{\"id\":\"" + id + "\"}",
                  RecordIndex.NONE),
              new WriteLog(Change.Kind.STORED, "w", true));
          if (fail) {
            throw new SgmException(ErrorCode.CONFLICT, "conflict " + id);
          }
          return null;
        });
  }

  /** How many transactions wrote the rows: those of one transaction have the same xmin. */
  private static int distinctCommits(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, "sgm", "sgm");
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(DISTINCT xmin::text) FROM records")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
