package dev.sgm.tck.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Scope;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.api.spi.WriteLog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The storage rules of the change log and its commit-ordered sequence: changes in sequence order,
 * each once, saying what the write was; a transaction's writes numbered in the order they were
 * made; paging that resumes without gaps or repeats; a follower that misses nothing while others
 * commit; listeners told after each commit that wrote something; and the log's retention.
 *
 * <p>An area of {@link StorageTck}, which is how to run it: the areas extend one another, so only
 * the suite extends this class.
 */
public abstract class StorageChangeLogTck extends StorageRecordsTck {
  StorageChangeLogTck() {}

  // ---- the commit-ordered sequence -----------------------------------------------------------

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

  // ---- commit listeners ----------------------------------------------------------------------

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
}
