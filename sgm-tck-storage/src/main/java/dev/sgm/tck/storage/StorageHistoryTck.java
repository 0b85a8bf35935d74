package dev.sgm.tck.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.api.spi.WriteLog;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The storage rules of the version log and snapshots: the versions that history asks to keep,
 * newest first, with writer and time; each record's latest entry at a sequence number; snapshots
 * kept by scope and name, listed newest first, and never replaced.
 *
 * <p>An area of {@link StorageTck}, which is how to run it: the areas extend one another, so only
 * the suite extends this class.
 */
public abstract class StorageHistoryTck extends StorageQueriesTck {
  StorageHistoryTck() {}

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
  @DisplayName("a version entry and a hidden row can be rewritten in place, and nothing else moves")
  @Requirement(rule = "storage: version log")
  void versions_rewrittenInPlace() {
    Scope alpha = scope("alpha");
    put(row(alpha, "a", 1, "key one"), stored("alice", true));
    put(row(alpha, "a", 2, "two"), stored("bob", true));
    List<VersionEntry> before =
        storage.inTransaction(tx -> tx.versions(alpha, "a", Long.MAX_VALUE, 10));
    VersionEntry first = before.get(1);
    String clean = doc(alpha, "a", 1, "[REDACTED:x]");
    assertTrue(inTx(tx -> tx.rewriteVersion(alpha, "a", first.seq(), clean)), "the entry is there");
    assertFalse(
        inTx(tx -> tx.rewriteVersion(alpha, "b", first.seq(), clean)),
        "no entry of another record is touched");
    List<VersionEntry> after =
        storage.inTransaction(tx -> tx.versions(alpha, "a", Long.MAX_VALUE, 10));
    assertEquals(clean, after.get(1).document());
    assertEquals(first.seq(), after.get(1).seq());
    assertEquals(first.writer(), after.get(1).writer());
    assertEquals(before.get(0), after.get(0), "the other entry is as it was");

    StoredRecord hidden =
        StoredRecord.toWrite(
            alpha, "h", "note", 1, now(), now(), true, doc(alpha, "h", 1, "key"), RecordIndex.NONE);
    put(hidden, stored("carol", false));
    assertFalse(
        inTx(tx -> tx.rewriteHiddenRow(alpha, "a", 2, clean)),
        "a live row is not rewritten in place");
    String cleanHidden = doc(alpha, "h", 1, "[REDACTED:x]");
    assertFalse(
        inTx(tx -> tx.rewriteHiddenRow(alpha, "h", 2, cleanHidden)),
        "a hidden row of another version (written since) is left as it is");
    assertTrue(inTx(tx -> tx.rewriteHiddenRow(alpha, "h", 1, cleanHidden)));
    StoredRecord rewritten = storage.find(alpha, "h").orElseThrow();
    assertTrue(rewritten.deleted());
    assertEquals(cleanHidden, rewritten.document());
    assertEquals(1, rewritten.version());
  }

  private boolean inTx(
      java.util.function.Function<dev.sgm.api.spi.StorageTransaction, Boolean> work) {
    return storage.inTransaction(work);
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
}
