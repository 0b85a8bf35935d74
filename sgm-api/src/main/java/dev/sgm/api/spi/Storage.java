package dev.sgm.api.spi;

import dev.sgm.api.ContentReference;
import dev.sgm.api.Scope;
import dev.sgm.api.StoredContent;
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

  /** The row at (scope, id), hidden (deleted) rows included, without locking it. */
  Optional<StoredRecord> find(Scope scope, String id);

  /**
   * One page of live records matching {@code query}, the count of all matches, and the paging mark.
   */
  StoragePage query(StorageQuery query);

  /** Keeps content under its hash; storing the same hash again changes nothing. */
  void putContent(ContentReference reference, byte[] bytes);

  /** Content by hash. */
  Optional<StoredContent> getContent(String hash);

  /** Where the data lives, for people to read (no secrets). */
  String describe();

  @Override
  void close();
}
