package dev.sgm.api.spi;

import dev.sgm.api.ContentReference;
import dev.sgm.api.Scope;
import dev.sgm.api.StoredContent;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * Durable record storage. The engine decides every semantic (validation, versions, idempotence,
 * scope modes); a storage only keeps rows and their index entries, runs queries, and makes each
 * unit of work atomic and durable once it returns.
 */
public interface Storage extends AutoCloseable {
  /**
   * Runs {@code work} as one atomic transaction and returns its result once it is durable. A
   * storage may run {@code work} more than once when a concurrent transaction forced a retry, so
   * the work must depend only on what it reads through the transaction. Any exception rolls
   * everything back.
   */
  <T> T inTransaction(Function<StorageTransaction, T> work);

  /**
   * Runs {@code work}, a short unit such as one record's store or delete, as {@link #inTransaction}
   * does, with the same guarantees. A storage whose commits are costly may run it together with
   * other callers' concurrent short units in one transaction and one commit; each still gets the
   * outcome it would have had alone (a unit that fails fails alone and leaves nothing behind, and
   * the others succeed), and each returns only once the shared commit is durable. By default,
   * {@link #inTransaction}.
   */
  default <T> T inShortTransaction(Function<StorageTransaction, T> work) {
    return inTransaction(work);
  }

  /** The row at (scope, id), hidden (deleted) rows included, without locking it. */
  Optional<StoredRecord> find(Scope scope, String id);

  /**
   * One page of live records matching {@code query}, the count of all matches, and the paging mark.
   */
  StoragePage query(StorageQuery query);

  /**
   * A sequence number at or above every write committed before this call, through which every write
   * is settled (committed, or abandoned): a follower that has applied the changes up to it misses
   * nothing committed before the call. It may wait briefly for transactions that are committing.
   */
  long committedSequence();

  /**
   * Committed changes with sequence numbers above {@code after}, oldest first, at most {@code
   * limit}, each with the row as it is now; only settled ones, so it never waits. Derived state
   * (the search index, watchers) follows the storage through here, in commit order.
   */
  ChangeBatch changesAfter(long after, int limit);

  /**
   * The lowest sequence number a follower may resume after: every change above it is still kept
   * (changes at or below it may have been pruned). A storage that never prunes keeps everything.
   */
  default long changesRetainedAfter() {
    return 0;
  }

  /**
   * Drops the change-log entries written before {@code micros} (microseconds since the epoch), and
   * raises {@link #changesRetainedAfter()} to the highest sequence dropped: the retention window of
   * the change feed. Safe to run from several nodes at once. A storage that never prunes keeps
   * everything.
   *
   * @return how many entries were dropped
   */
  default long pruneChangesBefore(long micros) {
    return 0;
  }

  /** The live rows with these row keys, in no particular order; missing or hidden ones left out. */
  List<StoredRecord> live(Collection<Long> rowKeys);

  /**
   * Whether {@link #committedSequence()} costs a round trip to another process (a database server).
   * A search answered from derived state then asks for it together with the rows it answers with
   * ({@link #liveAndCommitted}), after searching, instead of before.
   */
  default boolean committedSequenceCostsARoundTrip() {
    return false;
  }

  /**
   * The live rows with these row keys (as {@link #live}) and a {@link #committedSequence()} taken
   * no earlier than this call began, in one round trip where the storage is a server: a search of
   * derived state that began before this call checks with it that the state it searched missed
   * nothing committed before the search.
   */
  default LiveRows liveAndCommitted(Collection<Long> rowKeys) {
    List<StoredRecord> rows = live(rowKeys);
    return new LiveRows(rows, committedSequence());
  }

  /** Live rows and a committed sequence read with them (see {@link #liveAndCommitted}). */
  record LiveRows(List<StoredRecord> rows, long committedSequence) {
    public LiveRows {
      rows = List.copyOf(rows);
    }
  }

  /** Live rows in row-key order after {@code afterRowKey}, at most {@code limit}: for rebuilds. */
  List<StoredRecord> scanLive(long afterRowKey, int limit);

  /** How many live rows there are. */
  long countLive();

  /**
   * Every row, hidden (deleted) ones included, in row-key order after {@code afterRowKey}, at most
   * {@code limit}: for an export that copies the memory exactly. A storage that cannot list its
   * rows answers {@code unsupported_capability}.
   */
  default List<StoredRecord> scanRows(long afterRowKey, int limit) {
    throw notExportable();
  }

  /**
   * The version log of every record, in write-sequence order, entries with a sequence above {@code
   * afterSeq}, at most {@code limit}: for an export, which replays them in this order.
   */
  default List<VersionEntry> versionsAfter(long afterSeq, int limit) {
    throw notExportable();
  }

  /** Every snapshot of every scope, in write-sequence order: for an export. */
  default List<SnapshotEntry> allSnapshots() {
    throw notExportable();
  }

  /**
   * The hashes of the content kept, in ascending order after {@code afterHash} ({@code ""} for the
   * first page), at most {@code limit}: for an export.
   */
  default List<String> contentHashesAfter(String afterHash, int limit) {
    throw notExportable();
  }

  private static dev.sgm.api.SgmException notExportable() {
    return new dev.sgm.api.SgmException(
        dev.sgm.api.ErrorCode.UNSUPPORTED_CAPABILITY, "this storage cannot list all it keeps");
  }

  /** Runs {@code listener} after each commit that wrote something; it must return quickly. */
  void onCommit(Runnable listener);

  /**
   * An identifier of this store's data, the same every time it is opened: derived state built from
   * another store is not mistaken for this one's.
   */
  String identity();

  /** Keeps content under its hash; storing the same hash again changes nothing. */
  void putContent(ContentReference reference, byte[] bytes);

  /**
   * Keeps content under its hash, as {@link #putContent(ContentReference, byte[])}, and notes that
   * {@code holder} (a principal) put it, in one unit of work. A storage that keeps no holders lets
   * no principal reference content ({@link #holdsContent}), the safe answer.
   */
  default void putContent(ContentReference reference, byte[] bytes, String holder) {
    putContent(reference, bytes);
  }

  /** Whether {@code holder} has put the content of {@code hash}. */
  default boolean holdsContent(String hash, String holder) {
    return false;
  }

  /** Content by hash. */
  Optional<StoredContent> getContent(String hash);

  /**
   * The access tokens kept with this data, when this storage keeps them; without, only a static
   * token (from a file or the environment) can authenticate.
   */
  default java.util.Optional<TokenStore> tokens() {
    return java.util.Optional.empty();
  }

  /**
   * Checks cheaply that the store can answer now, for health checks: returns when it can, and
   * throws {@link dev.sgm.api.SgmException} with {@code unavailable} when it cannot (a database out
   * of reach). An embedded store that is open can always answer.
   */
  default void checkAvailable() {}

  /** Where the data lives, for people to read (no secrets). */
  String describe();

  @Override
  void close();
}
