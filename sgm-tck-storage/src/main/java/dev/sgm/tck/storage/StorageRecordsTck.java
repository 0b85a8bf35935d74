package dev.sgm.tck.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.WriteLog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The storage rules of records and units of work: a row kept exactly, replaced, hidden and removed;
 * a unit of work that throws leaves nothing behind; read-modify-write and create-if-absent stay
 * atomic under contention; concurrent short units that share commits fail alone and land in commit
 * order.
 *
 * <p>An area of {@link StorageTck}, which is how to run it: the areas extend one another, so only
 * the suite extends this class.
 */
public abstract class StorageRecordsTck extends StorageFixture {
  StorageRecordsTck() {}

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
}
