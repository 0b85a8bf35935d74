package dev.sgm.storage.sql;

import dev.sgm.api.ContentReference;
import dev.sgm.api.Scope;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.TokenStore;
import dev.sgm.api.spi.VersionEntry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A store on a SQL database with the schema that H2 and PostgreSQL share: records with their tag,
 * field and scope-pair indexes, the change log, the version log, snapshots, contents and tokens.
 * Every unit of work is one JDBC transaction, retried when it conflicts with a concurrent one; its
 * writes are numbered and logged as it is about to commit, so the sequence is in commit order.
 *
 * <p>What the database does differently comes from its {@link SqlDialect}: how connections are
 * lent, how numbers are handed out in commit order, and what its SQL does differently (upserts,
 * whether a row read for update stays locked, which failures are conflicts).
 */
public final class SqlStorage implements Storage {
  private final SqlDialect dialect;
  private final SqlTransactions transactions;
  private final SqlReads reads;
  private final SqlContents contents;

  /** A store on {@code dialect}'s database whose units of work never share a commit. */
  public SqlStorage(SqlDialect dialect) {
    this(dialect, 0);
  }

  /**
   * A store on {@code dialect}'s database.
   *
   * @param commitGroups how many groups of concurrent short units of work ({@link
   *     #inShortTransaction}) may run at once, each in one transaction with one commit; 0 to run
   *     each unit alone. Worth it where a commit is costly and commits take turns.
   */
  public SqlStorage(SqlDialect dialect, int commitGroups) {
    this.dialect = dialect;
    this.transactions = new SqlTransactions(dialect, commitGroups);
    this.reads = new SqlReads(dialect);
    this.contents = new SqlContents(dialect, transactions);
  }

  /** The database this store runs on. */
  public SqlDialect dialect() {
    return dialect;
  }

  /**
   * The connection a unit of work of a {@link SqlStorage} runs on, for its dialect to write with
   * (so {@link SqlDialect#beforeWrite} runs first).
   */
  public static Connection connection(StorageTransaction tx) {
    return ((SqlUnitOfWork) tx).writingConnection();
  }

  /** The store's identity, as its {@code sgm_meta} table holds it. */
  public static String readIdentity(Connection connection) throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("SELECT val FROM sgm_meta WHERE name = 'identity'")) {
      if (!rs.next()) {
        throw new SQLException("the store has no identity row in sgm_meta");
      }
      return rs.getString(1);
    }
  }

  /**
   * Runs {@code work} as one transaction, again when it conflicts with a concurrent one (see {@link
   * SqlTransactions}).
   */
  @Override
  public <T> T inTransaction(Function<StorageTransaction, T> work) {
    return transactions.inTransaction(work);
  }

  /**
   * Shares a commit with other callers' concurrent short units when this store gathers them (see
   * the constructor); otherwise {@link #inTransaction}.
   */
  @Override
  public <T> T inShortTransaction(Function<StorageTransaction, T> work) {
    return transactions.inShortTransaction(work);
  }

  @Override
  public void onCommit(Runnable listener) {
    transactions.onCommit(listener);
  }

  @Override
  public Optional<StoredRecord> find(Scope scope, String id) {
    return reads.find(scope, id);
  }

  @Override
  public StoragePage query(StorageQuery query) {
    return reads.query(query);
  }

  @Override
  public List<StoredRecord> live(Collection<Long> rowKeys) {
    return reads.live(rowKeys);
  }

  @Override
  public boolean committedSequenceCostsARoundTrip() {
    return dialect.committedSequenceQuery() != null;
  }

  /**
   * In one statement where the dialect reads the committed sequence in the database and the keys
   * fit in one query; otherwise as every storage may, the rows and then the sequence.
   */
  @Override
  public LiveRows liveAndCommitted(Collection<Long> rowKeys) {
    String sequence = dialect.committedSequenceQuery();
    if (sequence == null || rowKeys.size() > SqlReads.LIVE_KEYS_PER_QUERY) {
      return Storage.super.liveAndCommitted(rowKeys);
    }
    return reads.liveAndCommitted(rowKeys, sequence);
  }

  @Override
  public List<StoredRecord> scanLive(long afterRowKey, int limit) {
    return reads.scanLive(afterRowKey, limit);
  }

  @Override
  public List<StoredRecord> scanRows(long afterRowKey, int limit) {
    return reads.scanRows(afterRowKey, limit);
  }

  @Override
  public List<VersionEntry> versionsAfter(long afterSeq, int limit) {
    return reads.versionsAfter(afterSeq, limit);
  }

  @Override
  public List<SnapshotEntry> allSnapshots() {
    return reads.allSnapshots();
  }

  @Override
  public long countLive() {
    return reads.countLive();
  }

  @Override
  public void putContent(ContentReference reference, byte[] bytes) {
    contents.put(reference, bytes, null);
  }

  @Override
  public void putContent(ContentReference reference, byte[] bytes, String holder) {
    contents.put(reference, bytes, holder);
  }

  @Override
  public boolean holdsContent(String hash, String holder) {
    return contents.holds(hash, holder);
  }

  @Override
  public Optional<StoredContent> getContent(String hash) {
    return contents.get(hash);
  }

  @Override
  public List<String> contentHashesAfter(String afterHash, int limit) {
    return contents.hashesAfter(afterHash, limit);
  }

  @Override
  public String identity() {
    return dialect.identity();
  }

  @Override
  public long committedSequence() {
    return dialect.committedSequence();
  }

  @Override
  public ChangeBatch changesAfter(long after, int limit) {
    return dialect.changesAfter(after, limit);
  }

  @Override
  public long changesRetainedAfter() {
    return dialect.changesRetainedAfter();
  }

  @Override
  public long pruneChangesBefore(long micros) {
    return dialect.pruneChangesBefore(this, micros);
  }

  @Override
  public Optional<TokenStore> tokens() {
    return dialect.tokens();
  }

  @Override
  public void checkAvailable() {
    dialect.checkAvailable();
  }

  @Override
  public String describe() {
    return dialect.describe();
  }

  @Override
  public void close() {
    dialect.close();
  }
}
