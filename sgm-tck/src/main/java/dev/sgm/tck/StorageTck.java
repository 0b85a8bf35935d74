package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sgm.api.ContentReference;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.RetrieveQuery.OrderBy;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.RecordIndex.FieldValue;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.TokenStore;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.api.spi.WriteLog;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The storage conformance suite: the semantics of the {@link Storage} SPI that the engine relies on
 * and that no type signature states, checked against a real storage. Every storage plugin inherits
 * it and passes it: rows kept exactly, atomic read-modify-write under concurrency (what {@code
 * expected_version}, {@code if_absent} and {@code tasks.claim} stand on), a write sequence in
 * commit order that a follower can trust, the version log and snapshots, content, identity, the
 * change log's retention, access tokens and a health check.
 */
public abstract class StorageTck {
  private static final AtomicLong CLOCK = new AtomicLong(System.currentTimeMillis() * 1000);

  /** The storage under test, for the current test. */
  protected Storage storage;

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

  private static List<String> ids(StoragePage page) {
    List<String> ids = new ArrayList<>();
    for (StoragePage.Row row : page.rows()) {
      int at = row.document().indexOf("\"id\":\"") + 6;
      ids.add(row.document().substring(at, row.document().indexOf('"', at)));
    }
    return ids;
  }

  private List<Change> allChangesAfter(long after) {
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

  private static <T> List<T> runConcurrently(int threads, Callable<T> task) throws Exception {
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

  // ---- rows ----------------------------------------------------------------------------------

  @Test
  @DisplayName("a row is kept exactly as written and found by (scope, id)")
  @Requirement(rule = "storage: put and find")
  void rows_keptExactlyAndFoundByIdentity() {
    Scope alpha = scope("alpha");
    StoredRecord written = row(alpha, "a1", 1, "first");
    put(written);
    StoredRecord found = storage.find(alpha, "a1").orElseThrow();
    assertEquals(written.document(), found.document(), "the document text, byte for byte");
    assertEquals("note", found.type());
    assertEquals(1, found.version());
    assertEquals(written.createdMicros(), found.createdMicros());
    assertEquals(written.updatedMicros(), found.updatedMicros());
    assertFalse(found.deleted());
    assertTrue(found.rowKey() > 0, "a row key is given");
    assertTrue(found.createdSeq() > 0, "the creating write's sequence number is kept");
    assertTrue(storage.find(scope("beta"), "a1").isEmpty(), "the same id in another scope");
    assertTrue(storage.find(alpha, "a2").isEmpty());
    put(row(scope("beta"), "a1", 1, "other"));
    assertEquals(written.document(), storage.find(alpha, "a1").orElseThrow().document());
    assertNotEquals(
        found.rowKey(), storage.find(scope("beta"), "a1").orElseThrow().rowKey(), "two records");
  }

  @Test
  @DisplayName("replacing a row keeps its row key and creation, and takes the new fields")
  @Requirement(rule = "storage: replace")
  void rows_replaceKeepsTheRowKey() {
    Scope alpha = scope("alpha");
    put(row(alpha, "a", 1, "one"));
    StoredRecord first = storage.find(alpha, "a").orElseThrow();
    StoredRecord second = row(alpha, "a", 2, "two");
    put(second);
    StoredRecord found = storage.find(alpha, "a").orElseThrow();
    assertEquals(2, found.version());
    assertEquals(second.document(), found.document());
    assertEquals(first.rowKey(), found.rowKey());
    assertEquals(first.createdSeq(), found.createdSeq(), "replaced, not re-created");
    assertEquals(1, storage.countLive());
  }

  @Test
  @DisplayName("a hidden row is found by identity but is not live, counted or queried")
  @Requirement(rule = "storage: hidden rows")
  void rows_hiddenRowsAreNotLive() {
    Scope alpha = scope("alpha");
    put(row(alpha, "shown", 1, "x"));
    long micros = now();
    put(
        StoredRecord.toWrite(
            alpha,
            "hidden",
            "note",
            2,
            micros,
            micros,
            true,
            doc(alpha, "hidden", 2, "gone"),
            RecordIndex.NONE),
        new WriteLog(Change.Kind.DELETED, "alice", false));
    StoredRecord hidden = storage.find(alpha, "hidden").orElseThrow();
    assertTrue(hidden.deleted());
    StoredRecord shown = storage.find(alpha, "shown").orElseThrow();
    assertEquals(1, storage.countLive());
    assertEquals(
        List.of(shown.rowKey()),
        storage.live(List.of(shown.rowKey(), hidden.rowKey())).stream()
            .map(StoredRecord::rowKey)
            .toList());
    assertEquals(
        List.of("shown"),
        storage.scanLive(0, 10).stream().map(StoredRecord::id).toList(),
        "a rebuild scans live rows only");
    assertEquals(List.of("shown"), ids(storage.query(query(alpha, ScopeMode.EXACT, 10))));
    List<String> all =
        storage.inTransaction(tx -> tx.rows(alpha, false)).stream()
            .map(StoredRecord::id)
            .sorted()
            .toList();
    assertEquals(List.of("hidden", "shown"), all, "rows() includes hidden rows");
  }

  @Test
  @DisplayName("remove deletes the row for good and logs a deletion")
  @Requirement(rule = "storage: remove")
  void rows_removeDeletesAndLogs() {
    Scope alpha = scope("alpha");
    put(row(alpha, "a", 1, "one"));
    long mark = storage.committedSequence();
    long removedAfter = System.currentTimeMillis() * 1000;
    storage.inTransaction(
        tx -> {
          tx.remove(alpha, "a", new WriteLog(Change.Kind.DELETED, "bob", false));
          return null;
        });
    assertTrue(storage.find(alpha, "a").isEmpty());
    assertEquals(0, storage.countLive());
    List<Change> changes = allChangesAfter(mark);
    assertEquals(1, changes.size(), changes::toString);
    assertEquals(Change.Kind.DELETED, changes.get(0).kind());
    assertEquals(alpha, changes.get(0).scope());
    assertEquals("a", changes.get(0).id());
    assertNull(changes.get(0).current(), "no row any more");
    assertTrue(
        changes.get(0).atMicros() >= removedAfter,
        "a deletion is logged at the time it happened, not at the row's last write");
    // Removing what is not there changes nothing and logs nothing.
    storage.inTransaction(
        tx -> {
          tx.remove(alpha, "never", new WriteLog(Change.Kind.DELETED, "bob", false));
          return null;
        });
    assertEquals(1, allChangesAfter(mark).size());
  }

  @Test
  @DisplayName("a transaction that throws leaves nothing behind: no row, no change, no sequence")
  @Requirement(rule = "storage: atomic transactions")
  void transactions_rollBackOnException() {
    Scope alpha = scope("alpha");
    put(row(alpha, "kept", 1, "x"));
    long mark = storage.committedSequence();
    RuntimeException thrown =
        assertThrows(
            IllegalStateException.class,
            () ->
                storage.inTransaction(
                    tx -> {
                      tx.put(row(alpha, "lost", 1, "y"), stored("alice", true));
                      tx.put(row(alpha, "kept", 2, "z"), stored("alice", true));
                      throw new IllegalStateException("the work failed");
                    }));
    assertEquals("the work failed", thrown.getMessage(), "the work's own exception comes out");
    assertTrue(storage.find(alpha, "lost").isEmpty());
    assertEquals(1, storage.find(alpha, "kept").orElseThrow().version());
    assertEquals(List.of(), allChangesAfter(mark));
    assertEquals(
        List.of(),
        storage.inTransaction(tx -> tx.versions(alpha, "lost", Long.MAX_VALUE, 10)),
        "no version logged");
  }

  @Test
  @DisplayName("SgmExceptions thrown by the work come out unchanged and roll back")
  @Requirement(rule = "storage: atomic transactions")
  void transactions_engineErrorsPassThrough() {
    Scope alpha = scope("alpha");
    SgmException e =
        assertThrows(
            SgmException.class,
            () ->
                storage.inTransaction(
                    tx -> {
                      tx.put(row(alpha, "x", 1, "y"), stored("alice", false));
                      throw new SgmException(ErrorCode.CONFLICT, "version mismatch");
                    }));
    assertEquals(ErrorCode.CONFLICT, e.code());
    assertTrue(storage.find(alpha, "x").isEmpty());
  }

  // ---- atomicity under concurrency -----------------------------------------------------------

  @Test
  @DisplayName("read-modify-write through findForUpdate loses no update under contention")
  @Requirement(rule = "storage: expected_version atomicity")
  void concurrency_readModifyWriteLosesNoUpdate() throws Exception {
    Scope alpha = scope("alpha");
    int threads = 8;
    int each = 25;
    List<List<Long>> versions =
        runConcurrently(
            threads,
            () -> {
              List<Long> mine = new ArrayList<>();
              for (int i = 0; i < each; i++) {
                mine.add(
                    storage.inTransaction(
                        tx -> {
                          long next =
                              tx.findForUpdate(alpha, "counter")
                                      .map(StoredRecord::version)
                                      .orElse(0L)
                                  + 1;
                          tx.put(row(alpha, "counter", next, "v" + next), stored("t", false));
                          return next;
                        }));
              }
              return mine;
            });
    Set<Long> seen = new TreeSet<>();
    versions.forEach(seen::addAll);
    assertEquals(threads * each, seen.size(), "no two writers got the same version");
    assertEquals(threads * each, storage.find(alpha, "counter").orElseThrow().version());
  }

  @Test
  @DisplayName("create-if-absent has exactly one winner among concurrent writers")
  @Requirement(rule = "storage: if_absent atomicity")
  void concurrency_ifAbsentHasOneWinner() throws Exception {
    Scope alpha = scope("alpha");
    for (int round = 0; round < 10; round++) {
      String id = "claim-" + round;
      List<Boolean> won =
          runConcurrently(
              8,
              () ->
                  storage.inTransaction(
                      tx -> {
                        if (tx.findForUpdate(alpha, id).isPresent()) {
                          return false;
                        }
                        tx.put(
                            row(alpha, id, 1, Thread.currentThread().getName()),
                            stored("t", false));
                        return true;
                      }));
      assertEquals(1, Collections.frequency(won, true), "round " + round + ": " + won);
    }
    assertEquals(10, storage.countLive());
  }

  @Test
  @DisplayName("concurrent writers of different records all land")
  @Requirement(rule = "storage: concurrency")
  void concurrency_independentWritesAllLand() throws Exception {
    AtomicInteger next = new AtomicInteger();
    runConcurrently(
        8,
        () -> {
          for (int i = 0; i < 40; i++) {
            int n = next.incrementAndGet();
            put(row(scope("p" + (n % 5)), "r" + n, 1, "c" + n));
          }
          return null;
        });
    assertEquals(320, storage.countLive());
    assertEquals(320, allChangesAfter(0).size());
  }

  /** One short unit of work as its caller saw it: when it was asked and answered, and its id. */
  private record Acknowledged(String id, long askedNanos, long answeredNanos) {}

  @Test
  @DisplayName(
      "concurrent short units: one that fails fails alone, the rest land once, in commit order")
  @Requirement(rule = "storage: concurrency")
  void concurrency_shortUnitsFailAloneAndLandInCommitOrder() throws Exception {
    Scope alpha = scope("alpha");
    long mark = storage.committedSequence();
    AtomicInteger next = new AtomicInteger();
    List<List<Acknowledged>> perCaller =
        runConcurrently(
            16,
            () -> {
              List<Acknowledged> mine = new ArrayList<>();
              for (int i = 0; i < 20; i++) {
                int n = next.incrementAndGet();
                String id = "r" + n;
                long asked = System.nanoTime();
                if (n % 7 == 0) {
                  // Writes, then fails (as a version conflict found late would): nothing of it
                  // stays.
                  SgmException thrown =
                      assertThrows(
                          SgmException.class,
                          () ->
                              storage.inShortTransaction(
                                  tx -> {
                                    tx.findForUpdate(alpha, id);
                                    tx.put(row(alpha, id, 1, "doomed"), stored("w", true));
                                    throw new SgmException(ErrorCode.CONFLICT, "conflict " + id);
                                  }));
                  assertEquals("conflict " + id, thrown.getMessage(), "its own failure, unchanged");
                  continue;
                }
                long createdSeq =
                    storage.inShortTransaction(
                        tx -> {
                          tx.findForUpdate(alpha, id);
                          tx.put(row(alpha, id, 1, "c" + n), stored("w", true));
                          return tx.currentSequence();
                        });
                long answered = System.nanoTime();
                StoredRecord stored =
                    storage.find(alpha, id).orElseThrow(() -> new AssertionError(id));
                assertTrue(
                    storage.committedSequence() >= stored.createdSeq(),
                    "acknowledged means committed: " + id);
                assertTrue(createdSeq < stored.createdSeq(), "numbered as it committed: " + id);
                mine.add(new Acknowledged(id, asked, answered));
              }
              return mine;
            });
    List<Acknowledged> acknowledged = new ArrayList<>();
    perCaller.forEach(acknowledged::addAll);
    int failing = 320 / 7;
    assertEquals(320 - failing, acknowledged.size());
    assertEquals(320 - failing, storage.countLive(), "no failing unit left a row");
    List<Change> changes = allChangesAfter(mark);
    assertEquals(
        acknowledged.stream().map(Acknowledged::id).sorted().toList(),
        changes.stream().map(Change::id).sorted().toList(),
        "exactly one change for each acknowledged unit, none for a failing one");
    Map<String, Long> seqOf = new HashMap<>();
    changes.forEach(c -> seqOf.put(c.id(), c.seq()));
    for (Acknowledged a : acknowledged) {
      assertEquals(
          seqOf.get(a.id()), storage.find(alpha, a.id()).orElseThrow().createdSeq(), a.id());
      assertEquals(
          1,
          storage.inTransaction(tx -> tx.versions(alpha, a.id(), Long.MAX_VALUE, 10)).size(),
          "one version logged: " + a.id());
      for (Acknowledged b : acknowledged) {
        if (a.answeredNanos() < b.askedNanos()) {
          assertTrue(
              seqOf.get(a.id()) < seqOf.get(b.id()),
              a.id() + " was answered before " + b.id() + " was asked, so it committed first");
        }
      }
    }
  }

  @Test
  @DisplayName("a row written twice in one transaction ends with its last write's number")
  @Requirement(rule = "storage: change log")
  void sequence_aRowWrittenTwiceInOneTransaction() {
    Scope alpha = scope("alpha");
    put(row(alpha, "gone", 1, "1"));
    put(row(alpha, "kept", 1, "1"));
    long mark = storage.committedSequence();
    storage.inTransaction(
        tx -> {
          tx.put(row(alpha, "twice", 1, "first"), stored("a", true));
          tx.remove(alpha, "gone", new WriteLog(Change.Kind.DELETED, "a", true));
          tx.put(row(alpha, "kept", 2, "2"), stored("a", true));
          tx.put(row(alpha, "twice", 2, "second"), stored("b", true));
          return null;
        });
    List<Change> changes = allChangesAfter(mark);
    assertEquals(
        List.of("twice", "gone", "kept", "twice"), changes.stream().map(Change::id).toList());
    assertEquals(changes.get(0).seq() + 3, changes.get(3).seq(), changes::toString);
    StoredRecord twice = storage.find(alpha, "twice").orElseThrow();
    assertEquals(2, twice.version());
    assertEquals(changes.get(0).seq(), twice.createdSeq(), "created by the first write");
    assertTrue(storage.find(alpha, "gone").isEmpty());
    assertTrue(
        storage.find(alpha, "kept").orElseThrow().createdSeq() <= mark,
        "an update does not move the creation's number");
    assertEquals(2, storage.countLive(), "twice and kept");
    List<VersionEntry> versions =
        storage.inTransaction(tx -> tx.versions(alpha, "twice", Long.MAX_VALUE, 10));
    assertEquals(List.of("b", "a"), versions.stream().map(VersionEntry::writer).toList());
    assertEquals(changes.get(3).seq(), versions.get(0).seq());
    assertEquals(changes.get(0).seq(), versions.get(1).seq());
  }

  // ---- the commit-ordered sequence -----------------------------------------------------------

  @Test
  @DisplayName("changes come in sequence order, each once, with the row as it is now")
  @Requirement(rule = "storage: change log")
  void sequence_changesInOrderWithTheCurrentRow() {
    Scope alpha = scope("alpha");
    long mark = storage.committedSequence();
    put(row(alpha, "a", 1, "one"));
    put(row(alpha, "b", 1, "one"));
    put(row(alpha, "a", 2, "two"));
    List<Change> changes = allChangesAfter(mark);
    assertEquals(List.of("a", "b", "a"), changes.stream().map(Change::id).toList());
    for (int i = 1; i < changes.size(); i++) {
      assertTrue(changes.get(i).seq() > changes.get(i - 1).seq(), changes::toString);
    }
    assertTrue(changes.get(0).seq() > mark);
    assertEquals(2, changes.get(0).current().version(), "the row now, not as it was then");
    assertEquals(Change.Kind.STORED, changes.get(0).kind());
    assertTrue(
        storage.committedSequence() >= changes.get(2).seq(),
        "committedSequence covers every committed write");
    assertEquals(
        storage.find(alpha, "b").orElseThrow().createdSeq(),
        changes.get(1).seq(),
        "createdSeq is the creating write's number");
  }

  @Test
  @DisplayName("each change says what the write was: its type, version, writer and time")
  @Requirement(rule = "storage: change log", level = Requirement.Level.SHOULD)
  void sequence_changesSayWhatTheWriteWas() {
    Scope alpha = scope("alpha");
    long mark = storage.committedSequence();
    StoredRecord first = row(alpha, "a", 1, "one");
    put(first, stored("alice", false));
    put(row(alpha, "a", 2, "two"), stored("bob", false));
    Change change = allChangesAfter(mark).get(0);
    assertEquals("note", change.type());
    assertEquals(1, change.version(), "the version as written, not the row's now");
    assertEquals("alice", change.writer());
    assertEquals(first.updatedMicros(), change.atMicros());
  }

  @Test
  @DisplayName("one transaction's writes get consecutive numbers in the order they were made")
  @Requirement(rule = "storage: change log")
  void sequence_aTransactionsWritesAreNumberedInOrder() {
    Scope alpha = scope("alpha");
    long mark = storage.committedSequence();
    storage.inTransaction(
        tx -> {
          tx.put(row(alpha, "x", 1, "1"), stored("a", false));
          tx.put(row(alpha, "y", 1, "1"), stored("a", false));
          tx.put(row(alpha, "z", 1, "1"), stored("a", false));
          return null;
        });
    List<Change> changes = allChangesAfter(mark);
    assertEquals(List.of("x", "y", "z"), changes.stream().map(Change::id).toList());
    assertEquals(changes.get(0).seq() + 2, changes.get(2).seq(), changes::toString);
  }

  @Test
  @DisplayName("changesAfter pages by limit and resumes from 'through' without gaps or repeats")
  @Requirement(rule = "storage: change log paging")
  void sequence_pagingResumesWithoutGapsOrRepeats() {
    Scope alpha = scope("alpha");
    long mark = storage.committedSequence();
    for (int i = 0; i < 10; i++) {
      put(row(alpha, "r" + i, 1, "c"));
    }
    List<String> seen = new ArrayList<>();
    long from = mark;
    for (int guard = 0; guard < 20; guard++) {
      ChangeBatch batch = storage.changesAfter(from, 3);
      assertTrue(batch.changes().size() <= 3);
      if (batch.changes().isEmpty()) {
        break;
      }
      assertEquals(
          batch.changes().get(batch.changes().size() - 1).seq(),
          batch.through(),
          "a full page is caught up to its last change");
      batch.changes().forEach(c -> seen.add(c.id()));
      from = batch.through();
    }
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      expected.add("r" + i);
    }
    assertEquals(expected, seen);
    ChangeBatch idle = storage.changesAfter(from, 3);
    assertEquals(List.of(), idle.changes());
    assertTrue(idle.through() >= from, "through never goes back");
  }

  @Test
  @DisplayName("a follower reading while others commit never misses a change (commit order)")
  @Requirement(rule = "storage: commit-ordered sequence")
  void sequence_aFollowerNeverMissesAChange() throws Exception {
    long mark = storage.committedSequence();
    AtomicBoolean writing = new AtomicBoolean(true);
    List<Change> followed = Collections.synchronizedList(new ArrayList<>());
    Thread follower =
        Thread.ofPlatform()
            .start(
                () -> {
                  long from = mark;
                  while (true) {
                    boolean last = !writing.get();
                    ChangeBatch batch = storage.changesAfter(from, 50);
                    followed.addAll(batch.changes());
                    from = batch.through();
                    if (last && batch.changes().isEmpty()) {
                      return;
                    }
                  }
                });
    AtomicInteger next = new AtomicInteger();
    try {
      runConcurrently(
          8,
          () -> {
            for (int i = 0; i < 30; i++) {
              int n = next.incrementAndGet();
              // Transactions of different lengths, so that they commit out of start order.
              storage.inTransaction(
                  tx -> {
                    for (int k = 0; k <= n % 3; k++) {
                      tx.put(row(scope("f"), "r" + n + "-" + k, 1, "c"), stored("w", false));
                    }
                    return null;
                  });
            }
            return null;
          });
    } finally {
      writing.set(false);
      follower.join(60_000);
    }
    List<Change> all = allChangesAfter(mark);
    List<Long> allSeqs = all.stream().map(Change::seq).toList();
    List<Long> followedSeqs = followed.stream().map(Change::seq).toList();
    assertEquals(new HashSet<>(allSeqs).size(), allSeqs.size(), "no number used twice");
    assertEquals(allSeqs, followedSeqs, "the follower saw every change once, in order");
    int writes = 0;
    for (int n = 1; n <= 240; n++) {
      writes += n % 3 + 1;
    }
    assertEquals(writes, all.size());
  }

  // ---- live rows -----------------------------------------------------------------------------

  @Test
  @DisplayName("live, scanLive and countLive see the live rows by row key")
  @Requirement(rule = "storage: live rows")
  void live_byRowKeyScanAndCount() {
    List<Long> keys = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      put(row(scope("s" + i), "r" + i, 1, "c"));
      keys.add(storage.find(scope("s" + i), "r" + i).orElseThrow().rowKey());
    }
    assertEquals(5, storage.countLive());
    List<Long> found =
        new ArrayList<>(
            storage.live(List.of(keys.get(3), keys.get(1), 999_999_999L)).stream()
                .map(StoredRecord::rowKey)
                .toList());
    Collections.sort(found);
    assertEquals(List.of(keys.get(1), keys.get(3)), found, "missing keys are left out");
    assertEquals(List.of(), storage.live(List.of()));
    // However many keys it is asked at once (H2 refuses an array of more than 65,536 values).
    List<Long> many = new ArrayList<>();
    for (long k = 1; many.size() < 100_000; k++) {
      many.add(Long.MAX_VALUE - k); // no row has such a key
    }
    many.add(50_000, keys.get(4));
    many.add(keys.get(0));
    List<Long> amongMany =
        new ArrayList<>(storage.live(many).stream().map(StoredRecord::rowKey).toList());
    Collections.sort(amongMany);
    assertEquals(
        List.of(keys.get(0), keys.get(4)).stream().sorted().toList(),
        amongMany,
        "100,000 keys at once: the live ones among them");
    List<Long> scanned = new ArrayList<>();
    long after = 0;
    for (List<StoredRecord> page = storage.scanLive(after, 2);
        !page.isEmpty();
        page = storage.scanLive(after, 2)) {
      assertTrue(page.size() <= 2);
      for (StoredRecord r : page) {
        assertTrue(r.rowKey() > after, "row-key order");
        after = r.rowKey();
        scanned.add(r.rowKey());
      }
    }
    List<Long> sorted = new ArrayList<>(keys);
    Collections.sort(sorted);
    assertEquals(sorted, scanned);
    StoredRecord one = storage.live(List.of(keys.get(2))).get(0);
    assertEquals(scope("s2"), one.scope());
    assertEquals("r2", one.id());
    assertEquals(doc(scope("s2"), "r2", 1, "c"), one.document());
  }

  @Test
  @DisplayName("liveAndCommitted reads the live rows with a committed sequence no older than it")
  @Requirement(rule = "storage: live rows")
  void live_withTheCommittedSequence() {
    List<Long> keys = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      put(row(scope("w" + i), "r" + i, 1, "c"));
      keys.add(storage.find(scope("w" + i), "r" + i).orElseThrow().rowKey());
    }
    Scope hiddenScope = scope("w-hidden");
    long micros = now();
    put(
        StoredRecord.toWrite(
            hiddenScope,
            "gone",
            "note",
            2,
            micros,
            micros,
            true,
            doc(hiddenScope, "gone", 2, "gone"),
            RecordIndex.NONE),
        new WriteLog(Change.Kind.DELETED, "alice", false));
    long hidden = storage.find(hiddenScope, "gone").orElseThrow().rowKey();
    long before = storage.committedSequence();
    Storage.LiveRows read =
        storage.liveAndCommitted(List.of(keys.get(2), keys.get(0), hidden, 999_999_999L));
    long after = storage.committedSequence();
    assertTrue(
        read.committedSequence() >= before && read.committedSequence() <= after,
        "the sequence is read during the call: "
            + read.committedSequence()
            + " not within ["
            + before
            + ", "
            + after
            + "]");
    assertEquals(2, read.rows().size(), "each live row once; hidden and missing keys left out");
    Map<Long, StoredRecord> byKey = new HashMap<>();
    read.rows().forEach(r -> byKey.put(r.rowKey(), r));
    assertEquals(Set.of(keys.get(0), keys.get(2)), byKey.keySet());
    assertEquals(doc(scope("w2"), "r2", 1, "c"), byKey.get(keys.get(2)).document());
    assertEquals(scope("w0"), byKey.get(keys.get(0)).scope());
    put(row(scope("w3"), "r3", 1, "c"));
    long afterWrite = storage.committedSequence();
    assertTrue(afterWrite > before, "a write moves the committed sequence");
    Storage.LiveRows none = storage.liveAndCommitted(List.of());
    assertEquals(List.of(), none.rows());
    assertTrue(
        none.committedSequence() >= afterWrite
            && none.committedSequence() <= storage.committedSequence(),
        "with no row asked for, the sequence still includes the last write");
    Storage.LiveRows onlyHidden = storage.liveAndCommitted(List.of(hidden));
    assertEquals(List.of(), onlyHidden.rows());
    assertTrue(
        onlyHidden.committedSequence() >= afterWrite
            && onlyHidden.committedSequence() <= storage.committedSequence());
  }

  // ---- queries -------------------------------------------------------------------------------

  @Test
  @DisplayName("a query filters by scope mode, tags and fields, orders by time and pages")
  @Requirement(rule = "storage: query")
  void query_filtersOrdersAndPages() {
    Scope project = scope("q");
    Scope session = Scope.of("project", "q", "session", "s1");
    Scope sibling = scope("q2");
    RecordIndex red =
        new RecordIndex(List.of("red"), List.of(new FieldValue("data.state", "open")));
    RecordIndex blue =
        new RecordIndex(List.of("blue"), List.of(new FieldValue("data.state", "done")));
    put(row(project, "p1", 1, "c", red));
    put(row(project, "p2", 1, "c", blue));
    put(row(session, "s1", 1, "c", red));
    put(row(sibling, "x1", 1, "c", red));
    put(row(project, "p3", 1, "c", red));

    StoragePage exact = storage.query(query(project, ScopeMode.EXACT, 10));
    assertEquals(List.of("p3", "p2", "p1"), ids(exact), "newest first");
    assertEquals(3, exact.total());
    assertEquals(
        List.of("p3", "s1", "p2", "p1"),
        ids(storage.query(query(project, ScopeMode.DESCENDANTS, 10))));
    assertEquals(
        List.of("p3", "p2", "p1"),
        ids(storage.query(query(session, ScopeMode.ANCESTORS, 10))).stream()
            .filter(id -> id.startsWith("p"))
            .toList());
    StorageQuery tagged =
        StorageQuery.of(project, ScopeMode.DESCENDANTS, 10)
            .tags(List.of("red"), false)
            .filters(List.of(new FieldValue("data.state", "open")))
            .orderBy(OrderBy.UPDATED_AT, true)
            .build();
    assertEquals(List.of("p1", "s1", "p3"), ids(storage.query(tagged)), "oldest first");

    StorageQuery oldestFirst =
        StorageQuery.of(project, ScopeMode.EXACT, 2).orderBy(OrderBy.CREATED_AT, true).build();
    StoragePage first = storage.query(oldestFirst);
    assertEquals(List.of("p1", "p2"), ids(first));
    assertEquals(3, first.total(), "total counts every match, not the page");
    put(row(project, "p4", 1, "c"));
    StoragePage.Row last = first.rows().get(1);
    StorageQuery second =
        StorageQuery.of(project, ScopeMode.EXACT, 2)
            .orderBy(OrderBy.CREATED_AT, true)
            .after(last.position(), first.mark())
            .build();
    StoragePage rest = storage.query(second);
    assertEquals(List.of("p3"), ids(rest), "a row created after the mark is left out");
    assertEquals(3, rest.total(), "counted at the mark");
  }

  @Test
  @DisplayName(
      "a query within readable scopes matches, counts and pages only the rows of those scopes")
  @Requirement(rule = "storage: query within")
  void query_withinReadableScopes() {
    Scope project = scope("w");
    Scope mine = Scope.of("project", "w", "session", "mine");
    Scope deeper = Scope.of("project", "w", "session", "mine", "task", "t1");
    Scope other = Scope.of("project", "w", "session", "other");
    Scope alsoMine = Scope.of("project", "w", "team", "red");
    RecordIndex red =
        new RecordIndex(List.of("red"), List.of(new FieldValue("data.state", "open")));
    put(row(project, "p1", 1, "c", red));
    for (int i = 0; i < 5; i++) {
      put(row(mine, "m" + i, 1, "c", red));
      put(row(other, "o" + i, 1, "c", red));
    }
    put(row(deeper, "d1", 1, "c", red));
    put(row(alsoMine, "r1", 1, "c", red));

    List<Scope> readable = List.of(mine, alsoMine);
    StoragePage all = storage.query(within(project, ScopeMode.DESCENDANTS, readable, 100, null));
    assertEquals(
        List.of("d1", "m0", "m1", "m2", "m3", "m4", "r1"),
        ids(all).stream().sorted().toList(),
        "the readable scopes and the narrower ones, nothing else");
    assertEquals(7, all.total(), "total counts the readable rows only");
    assertEquals(
        List.of("m0", "m1", "m2", "m3", "m4", "d1"),
        ids(storage.query(within(deeper, ScopeMode.ANCESTORS, List.of(mine), 100, null))),
        "an ancestor query keeps to the readable ancestors");

    List<String> paged = new ArrayList<>();
    StoragePage page = storage.query(within(project, ScopeMode.DESCENDANTS, readable, 3, null));
    long mark = page.mark();
    while (true) {
      paged.addAll(ids(page));
      assertEquals(7, page.total());
      if (page.rows().size() < 3) {
        break;
      }
      put(row(mine, "new" + paged.size(), 1, "c", red));
      put(row(other, "newer" + paged.size(), 1, "c", red));
      StorageQuery.Position last = page.rows().get(page.rows().size() - 1).position();
      page =
          storage.query(
              StorageQuery.of(project, ScopeMode.DESCENDANTS, 3)
                  .orderBy(OrderBy.CREATED_AT, true)
                  .after(last, mark)
                  .within(readable)
                  .build());
    }
    assertEquals(
        List.of("m0", "m1", "m2", "m3", "m4", "d1", "r1"),
        paged,
        "keyset pages in creation order: no repeat, no skip, nothing created later");

    StoragePage filtered =
        storage.query(
            StorageQuery.of(project, ScopeMode.LINEAGE, 100)
                .tags(List.of("red"), false)
                .filters(List.of(new FieldValue("data.state", "open")))
                .within(List.of(deeper))
                .build());
    assertEquals(List.of("d1"), ids(filtered), "tags and fields within the readable scopes");
    assertEquals(
        List.of(),
        ids(storage.query(within(deeper, ScopeMode.ANCESTORS, List.of(other), 100, null))));
    StoragePage none = storage.query(within(project, ScopeMode.DESCENDANTS, List.of(), 100, null));
    assertEquals(List.of(), ids(none), "no readable scope: nothing");
    assertEquals(0, none.total());
  }

  private static StorageQuery within(
      Scope scope, ScopeMode mode, List<Scope> readable, int limit, StorageQuery.Position after) {
    return StorageQuery.of(scope, mode, limit)
        .orderBy(OrderBy.CREATED_AT, true)
        .after(after, -1)
        .within(readable)
        .build();
  }

  // ---- commits, identity, durability ---------------------------------------------------------

  @Test
  @DisplayName("onCommit listeners run after each commit that wrote something")
  @Requirement(rule = "storage: onCommit")
  void onCommit_runsAfterWritingCommits() {
    Scope alpha = scope("alpha");
    AtomicInteger calls = new AtomicInteger();
    List<Boolean> visible = Collections.synchronizedList(new ArrayList<>());
    storage.onCommit(
        () -> {
          calls.incrementAndGet();
          visible.add(storage.committedSequence() > 0);
        });
    put(row(alpha, "a", 1, "x"));
    assertEquals(1, calls.get());
    storage.inTransaction(tx -> tx.findForUpdate(alpha, "a"));
    assertEquals(1, calls.get(), "a transaction that wrote nothing notifies nobody");
    assertThrows(
        IllegalStateException.class,
        () ->
            storage.inTransaction(
                tx -> {
                  tx.put(row(alpha, "b", 1, "x"), stored("a", false));
                  throw new IllegalStateException("rolled back");
                }));
    assertEquals(1, calls.get(), "a rolled-back transaction notifies nobody");
    put(row(alpha, "c", 1, "x"));
    assertEquals(2, calls.get());
    assertEquals(List.of(true, true), visible, "the write is committed when listeners run");
  }

  @Test
  @DisplayName("the identity is stable across opens and differs between stores")
  @Requirement(rule = "storage: identity")
  void identity_stableAcrossOpensAndDistinct() {
    String identity = storage.identity();
    assertFalse(identity.isBlank());
    assertEquals(identity, storage.identity());
    put(row(scope("alpha"), "a", 1, "x"));
    storage.close();
    storage = reopen();
    assertEquals(identity, storage.identity(), "the same data, the same identity");
    storage.close();
    storage = createEmpty();
    assertNotEquals(identity, storage.identity(), "other data, another identity");
  }

  @Test
  @DisplayName("what was committed is there after the storage is closed and opened again")
  @Requirement(rule = "storage: durability")
  void durability_committedDataSurvivesAReopen() {
    Scope alpha = scope("alpha");
    put(row(alpha, "a", 1, "one"), stored("alice", true));
    put(row(alpha, "a", 2, "two"), stored("alice", true));
    storage.putContent(new ContentReference("ab".repeat(32), "utf-8", 3), "abc".getBytes());
    long sequence = storage.committedSequence();
    String document = storage.find(alpha, "a").orElseThrow().document();
    storage.close();
    storage = reopen();
    assertEquals(document, storage.find(alpha, "a").orElseThrow().document());
    assertEquals(sequence, storage.committedSequence(), "the sequence goes on where it was");
    assertEquals(
        2, storage.inTransaction(tx -> tx.versions(alpha, "a", Long.MAX_VALUE, 10)).size());
    assertTrue(storage.getContent("ab".repeat(32)).isPresent());
    put(row(alpha, "b", 1, "x"));
    List<Change> after = allChangesAfter(sequence);
    assertEquals(1, after.size());
    assertTrue(after.get(0).seq() > sequence, "numbers are never reused after a restart");
  }

  // ---- version log and snapshots -------------------------------------------------------------

  @Test
  @DisplayName("the version log keeps what history asks for, newest first, with writer and time")
  @Requirement(rule = "storage: version log")
  void versions_keptNewestFirstWhenAsked() {
    Scope alpha = scope("alpha");
    put(row(alpha, "a", 1, "one"), stored("alice", true));
    put(row(alpha, "a", 2, "two"), stored("bob", false));
    StoredRecord third = row(alpha, "a", 3, "three");
    put(third, stored("carol", true));
    storage.inTransaction(
        tx -> {
          tx.remove(alpha, "a", new WriteLog(Change.Kind.DELETED, "dave", true));
          return null;
        });
    List<VersionEntry> log =
        storage.inTransaction(tx -> tx.versions(alpha, "a", Long.MAX_VALUE, 10));
    assertEquals(
        List.of("dave", "carol", "alice"), log.stream().map(VersionEntry::writer).toList());
    assertTrue(log.get(0).deleted(), "the removal is a tombstone");
    assertEquals(third.document(), log.get(0).document(), "carrying what was deleted");
    assertEquals(3, log.get(1).version());
    assertEquals(third.document(), log.get(1).document());
    assertEquals(third.updatedMicros(), log.get(1).writtenMicros());
    assertTrue(log.get(0).seq() > log.get(1).seq() && log.get(1).seq() > log.get(2).seq());
    List<VersionEntry> older =
        storage.inTransaction(tx -> tx.versions(alpha, "a", log.get(1).seq(), 10));
    assertEquals(List.of(1L), older.stream().map(VersionEntry::version).toList(), "before a seq");
    assertEquals(1, storage.inTransaction(tx -> tx.versions(alpha, "a", Long.MAX_VALUE, 1)).size());
    assertEquals(
        List.of(),
        storage.inTransaction(tx -> tx.versions(scope("beta"), "a", Long.MAX_VALUE, 10)));
  }

  @Test
  @DisplayName("stateAt answers each record's latest logged entry at a sequence number")
  @Requirement(rule = "storage: version log")
  void versions_stateAtASequence() {
    Scope project = scope("alpha");
    Scope session = Scope.of("project", "alpha", "session", "s");
    put(row(project, "a", 1, "a1"), stored("w", true));
    put(row(session, "n", 1, "n1"), stored("w", true));
    long at = storage.committedSequence();
    put(row(project, "a", 2, "a2"), stored("w", true));
    put(row(project, "b", 1, "b1"), stored("w", true));
    storage.inTransaction(
        tx -> {
          tx.remove(session, "n", new WriteLog(Change.Kind.DELETED, "w", true));
          return null;
        });
    List<VersionEntry> then = storage.inTransaction(tx -> tx.stateAt(project, false, at));
    assertEquals(List.of("a@1"), then.stream().map(e -> e.id() + "@" + e.version()).toList());
    List<VersionEntry> withNarrower = storage.inTransaction(tx -> tx.stateAt(project, true, at));
    assertEquals(
        Set.of("a@1", "n@1"),
        Set.copyOf(withNarrower.stream().map(e -> e.id() + "@" + e.version()).toList()));
    List<VersionEntry> nowAll =
        storage.inTransaction(tx -> tx.stateAt(project, true, storage.committedSequence()));
    assertEquals(3, nowAll.size(), nowAll::toString);
    assertTrue(
        nowAll.stream().anyMatch(e -> e.id().equals("n") && e.deleted()), "tombstones included");
  }

  @Test
  @DisplayName("snapshots are kept by (scope, name), listed newest first, and never replaced")
  @Requirement(rule = "storage: snapshots")
  void snapshots_keptListedAndUnique() {
    Scope alpha = scope("alpha");
    put(row(alpha, "a", 1, "x"), stored("w", true));
    long first = storage.inTransaction(tx -> tx.currentSequence());
    storage.inTransaction(
        tx -> {
          tx.putSnapshot(new SnapshotEntry(alpha, "before", false, first, now(), "alice"));
          return null;
        });
    put(row(alpha, "a", 2, "y"), stored("w", true));
    long second = storage.inTransaction(tx -> tx.currentSequence());
    assertTrue(second > first);
    storage.inTransaction(
        tx -> {
          tx.putSnapshot(new SnapshotEntry(alpha, "after", true, second, now(), "bob"));
          return null;
        });
    Optional<SnapshotEntry> before = storage.inTransaction(tx -> tx.snapshot(alpha, "before"));
    assertEquals(first, before.orElseThrow().seq());
    assertEquals("alice", before.get().createdBy());
    assertFalse(before.get().descendants());
    assertTrue(storage.inTransaction(tx -> tx.snapshot(scope("beta"), "before")).isEmpty());
    assertEquals(
        List.of("after", "before"),
        storage.inTransaction(tx -> tx.snapshots(alpha)).stream()
            .map(SnapshotEntry::name)
            .toList());
    SgmException e =
        assertThrows(
            SgmException.class,
            () ->
                storage.inTransaction(
                    tx -> {
                      tx.putSnapshot(new SnapshotEntry(alpha, "before", false, second, now(), "x"));
                      return null;
                    }));
    assertEquals(ErrorCode.CONFLICT, e.code());
    assertEquals(first, storage.inTransaction(tx -> tx.snapshot(alpha, "before")).get().seq());
  }

  // ---- content -------------------------------------------------------------------------------

  @Test
  @DisplayName("content is kept under its hash, byte for byte; the same hash again changes nothing")
  @Requirement(rule = "storage: content")
  void content_keptByHash() {
    byte[] bytes = "héllo\u0000world".getBytes(StandardCharsets.UTF_8);
    ContentReference reference = new ContentReference("cd".repeat(32), "utf-8", bytes.length);
    storage.putContent(reference, bytes);
    storage.putContent(reference, bytes);
    StoredContent found = storage.getContent(reference.hash()).orElseThrow();
    assertEquals(reference, found.reference());
    assertTrue(java.util.Arrays.equals(bytes, found.bytes()));
    assertTrue(storage.getContent("ef".repeat(32)).isEmpty());
  }

  @Test
  @DisplayName("the principals that put a content are kept with it, each once")
  @Requirement(rule = "storage: content holders")
  void content_holdersAreKept() {
    byte[] bytes = "held by two".getBytes(StandardCharsets.UTF_8);
    ContentReference reference = new ContentReference("ce".repeat(32), "utf-8", bytes.length);
    storage.putContent(reference, bytes, "alice");
    storage.putContent(reference, bytes, "alice");
    storage.putContent(reference, bytes, "bob");
    assertTrue(storage.holdsContent(reference.hash(), "alice"));
    assertTrue(storage.holdsContent(reference.hash(), "bob"));
    assertFalse(storage.holdsContent(reference.hash(), "carol"));
    assertFalse(storage.holdsContent("ef".repeat(32), "alice"));
    assertTrue(
        java.util.Arrays.equals(bytes, storage.getContent(reference.hash()).orElseThrow().bytes()));
  }

  @Test
  @DisplayName("describe names where the data lives")
  @Requirement(rule = "storage: describe", level = Requirement.Level.SHOULD)
  void describe_namesTheStore() {
    assertFalse(storage.describe().isBlank());
    assertFalse(storage.describe().toLowerCase(java.util.Locale.ROOT).contains("password"));
  }

  @Test
  @DisplayName("a cheap health check answers while the store is open")
  @Requirement(rule = "storage: health")
  void health_answersWhileOpen() {
    storage.checkAvailable();
  }

  // ---- change-log retention ------------------------------------------------------------------

  @Test
  @DisplayName(
      "pruning drops only entries older than asked, every change above the retained mark is kept,"
          + " and the mark never goes down")
  @Requirement(rule = "storage: change-log retention")
  void retention_pruneKeepsEveryChangeAboveTheMark() throws Exception {
    Scope alpha = scope("alpha");
    long start = storage.committedSequence();
    for (String id : List.of("a", "b", "c", "d")) {
      put(row(alpha, id, 1, "x"));
    }
    List<Change> written = allChangesAfter(start);
    assertEquals(4, written.size(), written::toString);
    // Entries are written at the rows' times: before the third's time are the first two.
    long third = storage.find(alpha, "c").orElseThrow().updatedMicros();
    List<Long> dropped = runConcurrently(4, () -> storage.pruneChangesBefore(third));
    long retained = storage.changesRetainedAfter();
    long total = dropped.stream().mapToLong(Long::longValue).sum();
    List<Long> kept = allChangesAfter(retained).stream().map(Change::seq).toList();
    List<Long> above = written.stream().map(Change::seq).filter(seq -> seq > retained).toList();
    assertTrue(kept.containsAll(above), "every change above the mark is kept: " + kept);
    assertTrue(
        kept.containsAll(List.of(written.get(2).seq(), written.get(3).seq())),
        "entries at or after the time asked are kept: " + kept);
    assertTrue(retained < written.get(2).seq(), "the mark stays below what is kept");
    if (total > 0) {
      // A store that prunes: the mark covers what went, and pruning at once counted each once.
      assertEquals(written.get(1).seq(), retained, "the mark is the highest sequence dropped");
      assertEquals(
          List.of(written.get(2).seq(), written.get(3).seq()),
          allChangesAfter(start).stream().map(Change::seq).toList(),
          "the dropped entries are gone");
    } else {
      assertEquals(0, retained, "a store that pruned nothing keeps everything");
    }
    assertEquals(0, storage.pruneChangesBefore(third), "nothing more to drop");
    assertEquals(0, storage.pruneChangesBefore(0), "an older time drops nothing");
    assertEquals(retained, storage.changesRetainedAfter(), "the mark never goes down");
    storage.close();
    storage = reopen();
    assertEquals(retained, storage.changesRetainedAfter(), "the mark survives a reopen");
  }

  @Test
  @DisplayName("the change log is pruned when asked: the change feed's retention window")
  @Requirement(rule = "storage: change-log retention", level = Requirement.Level.SHOULD)
  void retention_oldEntriesArePruned() {
    Scope alpha = scope("alpha");
    long start = storage.committedSequence();
    put(row(alpha, "a", 1, "x"));
    long seq = allChangesAfter(start).get(0).seq();
    long after = storage.find(alpha, "a").orElseThrow().updatedMicros() + 1;
    assertTrue(storage.pruneChangesBefore(after) > 0, "the old entry was dropped");
    assertTrue(storage.changesRetainedAfter() >= seq, "the mark covers it");
  }

  // ---- access tokens -------------------------------------------------------------------------

  private static TokenStore.Entry token(String id, Instant created, Instant expires) {
    byte[] hash = new byte[32];
    for (int i = 0; i < hash.length; i++) {
      hash[i] = (byte) (id.hashCode() * 31 + i * 7);
    }
    return new TokenStore.Entry(
        id, "p-" + id, hash, "[{\"scope\":\"project=alpha\"}]", created, expires, null);
  }

  private static Instant micros(long micros) {
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
  }

  @Test
  @DisplayName("the store keeps access tokens, so that every node sharing it sees the same ones")
  @Requirement(rule = "storage: tokens", level = Requirement.Level.SHOULD)
  void tokens_kept() {
    assertTrue(storage.tokens().isPresent(), "without, only a static token can authenticate");
  }

  @Test
  @DisplayName(
      "a token is kept exactly (hash, grants, times to the microsecond), found by id and listed"
          + " oldest first")
  @Requirement(rule = "storage: tokens")
  void tokens_keptExactlyFoundAndListed() {
    assumeTrue(storage.tokens().isPresent(), "this storage keeps no tokens");
    TokenStore tokens = storage.tokens().orElseThrow();
    long base = now();
    TokenStore.Entry second = token("00000000000000b2", micros(base + 10), null);
    TokenStore.Entry first = token("00000000000000a1", micros(base), micros(base + 999_999));
    tokens.add(second);
    tokens.add(first);
    TokenStore.Entry found = tokens.find(first.id()).orElseThrow();
    assertEntry(first, found);
    assertNull(tokens.find(second.id()).orElseThrow().expiresAt(), "no expiry stays none");
    assertTrue(tokens.find("00000000000000ff").isEmpty());
    assertEquals(
        List.of(first.id(), second.id()),
        tokens.list().stream().map(TokenStore.Entry::id).toList(),
        "oldest first");
  }

  @Test
  @DisplayName("a token is revoked once, stays listed as revoked, and that survives a reopen")
  @Requirement(rule = "storage: tokens")
  void tokens_revokedOnceAndDurably() {
    assumeTrue(storage.tokens().isPresent(), "this storage keeps no tokens");
    TokenStore.Entry entry = token("00000000000000c3", micros(now()), null);
    storage.tokens().orElseThrow().add(entry);
    Instant at = micros(now());
    assertTrue(storage.tokens().orElseThrow().revoke(entry.id(), at));
    assertFalse(storage.tokens().orElseThrow().revoke(entry.id(), micros(now())), "only once");
    assertFalse(storage.tokens().orElseThrow().revoke("00000000000000ee", at), "no such token");
    storage.close();
    storage = reopen();
    TokenStore tokens = storage.tokens().orElseThrow();
    assertEquals(at, tokens.find(entry.id()).orElseThrow().revokedAt(), "revoked, at its time");
    assertEquals(at, tokens.list().get(0).revokedAt(), "listed as revoked");
    assertArrayEquals(entry.hash(), tokens.find(entry.id()).orElseThrow().hash());
  }

  private static void assertEntry(TokenStore.Entry expected, TokenStore.Entry actual) {
    assertEquals(expected.id(), actual.id());
    assertEquals(expected.principal(), actual.principal());
    assertArrayEquals(expected.hash(), actual.hash());
    assertEquals(expected.grants(), actual.grants());
    assertEquals(expected.createdAt(), actual.createdAt());
    assertEquals(expected.expiresAt(), actual.expiresAt());
    assertNull(actual.revokedAt());
  }
}
