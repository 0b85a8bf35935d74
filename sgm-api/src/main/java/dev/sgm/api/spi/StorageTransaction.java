package dev.sgm.api.spi;

import dev.sgm.api.Scope;
import java.util.List;
import java.util.Optional;

/** The operations available inside one storage transaction. */
public interface StorageTransaction {
  /** The row at (scope, id), hidden (deleted) rows included, locked until the transaction ends. */
  Optional<StoredRecord> findForUpdate(Scope scope, String id);

  /**
   * Inserts a new row, or replaces the row at the same (scope, id) with its index entries, and
   * records the write as {@code log} says. The write's sequence number is given at commit, in
   * commit order: a transaction that commits later never gets a lower one.
   */
  void put(StoredRecord record, WriteLog log);

  /**
   * Physically removes the row at (scope, id) and its index entries, recording it as {@code log}
   * says.
   */
  void remove(Scope scope, String id, WriteLog log);

  /** Every row (hidden ones included) in {@code scope}, or in it and every narrower scope. */
  List<StoredRecord> rows(Scope scope, boolean descendants);

  /**
   * The version log of one record, newest first, of entries with a sequence below {@code
   * beforeSeq}.
   */
  List<VersionEntry> versions(Scope scope, String id, long beforeSeq, int limit);

  /**
   * The state of {@code scope} (and its narrower scopes, with {@code descendants}) at sequence
   * {@code seq}: for each record that had a logged write by then, its latest entry up to {@code
   * seq} (tombstones included).
   */
  List<VersionEntry> stateAt(Scope scope, boolean descendants, long seq);

  /**
   * The sequence number through which every write is settled (committed, or abandoned): a
   * consistent point to take a snapshot at.
   */
  long currentSequence();

  /** Saves a snapshot; fails with {@code conflict} when its scope already has one of that name. */
  void putSnapshot(SnapshotEntry snapshot);

  /** The snapshot named {@code name} in exactly {@code scope}. */
  Optional<SnapshotEntry> snapshot(Scope scope, String name);

  /** The snapshots taken of exactly {@code scope}, newest first. */
  List<SnapshotEntry> snapshots(Scope scope);

  /**
   * Replaces in place the document of the version entry {@code seq} of (scope, id), changing
   * nothing else: how a credential is purged from history, where a new version would leave it in
   * the old ones. False when there is no such entry. A storage that keeps no version log answers
   * {@code unsupported_capability}.
   */
  default boolean rewriteVersion(Scope scope, String id, long seq, String document) {
    throw new dev.sgm.api.SgmException(
        dev.sgm.api.ErrorCode.UNSUPPORTED_CAPABILITY, "this storage cannot rewrite its history");
  }

  /**
   * Replaces in place the document of the hidden (deleted) row at (scope, id) of {@code version},
   * changing nothing else: a hidden row is no version a write could replace. False when there is no
   * hidden row of that version there (the record was written since it was read).
   */
  default boolean rewriteHiddenRow(Scope scope, String id, long version, String document) {
    throw new dev.sgm.api.SgmException(
        dev.sgm.api.ErrorCode.UNSUPPORTED_CAPABILITY, "this storage cannot rewrite its history");
  }
}
