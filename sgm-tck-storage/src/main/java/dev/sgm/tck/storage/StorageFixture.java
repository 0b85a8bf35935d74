package dev.sgm.tck.storage;

import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.WriteLog;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the storage suites share: the storage under test, opened empty for each test through the
 * hooks that a storage's test gives ({@link #createEmpty()}, {@link #reopen()}) and closed after
 * it, and the rows, logs, queries and concurrent runs that the tests speak in.
 *
 * <p>The base of the areas of {@link StorageTck}, which is how to run them.
 */
public abstract class StorageFixture {
  private static final AtomicLong CLOCK = new AtomicLong(System.currentTimeMillis() * 1000);

  /** The storage under test, for the current test. */
  protected Storage storage;

  StorageFixture() {}

  /**
   * A storage that holds nothing yet, opened for one test; the suite closes it. Each call starts
   * from empty data (a new database, schema or file).
   */
  protected abstract Storage createEmpty();

  /**
   * The data of the storage last returned by {@link #createEmpty()} opened again, after the suite
   * closed it: what a restart of the server sees.
   */
  protected abstract Storage reopen();

  @BeforeEach
  final void open() {
    storage = createEmpty();
  }

  @AfterEach
  final void closeStorage() {
    if (storage != null) {
      storage.close();
    }
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** Distinct, increasing microsecond times, as the engine's clock gives them. */
  protected static long now() {
    return CLOCK.incrementAndGet();
  }

  protected static String doc(Scope scope, String id, long version, String content) {
    return "{\"id\":\""
        + id
        + "\",\"type\":\"note\",\"scope\":"
        + scope.toJson()
        + ",\"version\":"
        + version
        + ",\"content\":\""
        + content
        + "\",\"n\":1.0}";
  }

  protected static StoredRecord row(Scope scope, String id, long version, String content) {
    return row(scope, id, version, content, RecordIndex.NONE);
  }

  protected static StoredRecord row(
      Scope scope, String id, long version, String content, RecordIndex index) {
    long micros = now();
    return StoredRecord.toWrite(
        scope, id, "note", version, micros, micros, false, doc(scope, id, version, content), index);
  }

  protected static WriteLog stored(String writer, boolean keepVersion) {
    return new WriteLog(Change.Kind.STORED, writer, keepVersion);
  }

  /** Writes one row in its own transaction. */
  protected void put(StoredRecord row) {
    put(row, stored("alice", false));
  }

  protected void put(StoredRecord row, WriteLog log) {
    storage.inTransaction(
        tx -> {
          tx.findForUpdate(row.scope(), row.id());
          tx.put(row, log);
          return null;
        });
  }

  protected static Scope scope(String project) {
    return Scope.of("project", project);
  }

  protected static StorageQuery query(Scope scope, ScopeMode mode, int limit) {
    return StorageQuery.of(scope, mode, limit).build();
  }

  /** The ids of a page's rows, as their documents give them. */
  static List<String> ids(StoragePage page) {
    List<String> ids = new ArrayList<>();
    for (StoragePage.Row row : page.rows()) {
      int at = row.document().indexOf("\"id\":\"") + 6;
      ids.add(row.document().substring(at, row.document().indexOf('"', at)));
    }
    return ids;
  }

  /** Every change after {@code after}, read batch by batch until caught up. */
  List<Change> allChangesAfter(long after) {
    List<Change> all = new ArrayList<>();
    long from = after;
    while (true) {
      ChangeBatch batch = storage.changesAfter(from, 1000);
      all.addAll(batch.changes());
      if (batch.changes().isEmpty() || batch.through() == from) {
        return all;
      }
      from = batch.through();
    }
  }

  /** Runs {@code task} on {@code threads} threads released at once, and gives their results. */
  static <T> List<T> runConcurrently(int threads, Callable<T> task) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<T>> futures = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        futures.add(
            pool.submit(
                () -> {
                  start.await();
                  return task.call();
                }));
      }
      start.countDown();
      List<T> results = new ArrayList<>();
      for (Future<T> future : futures) {
        results.add(future.get(120, TimeUnit.SECONDS));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }
}
