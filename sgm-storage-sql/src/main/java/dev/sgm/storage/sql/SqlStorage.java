package dev.sgm.storage.sql;

import dev.sgm.api.ContentReference;
import dev.sgm.api.Scope;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageQuery.Position;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.TokenStore;
import dev.sgm.api.spi.VersionEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
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

  /**
   * The most row keys {@link #live} binds to one query; more are asked in turn. H2 refuses an array
   * of more than 65,536 values.
   */
  static final int LIVE_KEYS_PER_QUERY = 10_000;

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
    try (SqlLease lease = dialect.lease()) {
      return SqlRows.find(lease.cached(SqlRows.FIND), scope, id);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  @Override
  public StoragePage query(StorageQuery query) {
    try (SqlLease lease = dialect.lease()) {
      Connection connection = lease.connection();
      long mark = query.mark() >= 0 ? query.mark() : dialect.queryMark(connection);
      SqlQuery sql = SqlQuery.build(query, mark);
      long total;
      try (PreparedStatement ps = connection.prepareStatement(sql.countSql())) {
        sql.bindCount(ps);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          total = rs.getLong(1);
        }
      }
      List<StoragePage.Row> rows = new ArrayList<>();
      if (total > 0) {
        try (PreparedStatement ps = connection.prepareStatement(sql.pageSql())) {
          sql.bindPage(ps);
          try (ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
              rows.add(
                  new StoragePage.Row(rs.getString(2), new Position(rs.getLong(3), rs.getLong(1))));
            }
          }
        }
      }
      return new StoragePage(rows, total, mark);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  @Override
  public List<StoredRecord> live(Collection<Long> rowKeys) {
    if (rowKeys.isEmpty()) {
      return List.of();
    }
    Long[] keys = rowKeys.toArray(Long[]::new);
    try (SqlLease lease = dialect.lease()) {
      PreparedStatement ps =
          lease.cached(SqlRows.ROW_COLUMNS + " WHERE pk = ANY(?) AND deleted = FALSE");
      List<StoredRecord> rows = new ArrayList<>();
      for (int from = 0; from < keys.length; from += LIVE_KEYS_PER_QUERY) {
        int to = Math.min(keys.length, from + LIVE_KEYS_PER_QUERY);
        dialect.bindRowKeys(lease.connection(), ps, 1, Arrays.copyOfRange(keys, from, to));
        rows.addAll(SqlRows.readRows(ps));
      }
      return rows;
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  @Override
  public boolean committedSequenceCostsARoundTrip() {
    return dialect.committedSequenceQuery() != null;
  }

  @Override
  public LiveRows liveAndCommitted(Collection<Long> rowKeys) {
    String sequence = dialect.committedSequenceQuery();
    if (sequence == null || rowKeys.size() > LIVE_KEYS_PER_QUERY) {
      return Storage.super.liveAndCommitted(rowKeys);
    }
    // The one row of the sequence, joined to the rows asked for: a row even when none is live.
    String sql =
        "SELECT s.committed, "
            + SqlRows.JOINED_ROW_FIELDS
            + " FROM ("
            + sequence
            + ") s(committed) LEFT JOIN records r ON r.pk = ANY(?) AND r.deleted = FALSE";
    try (SqlLease lease = dialect.lease()) {
      PreparedStatement ps = lease.cached(sql);
      dialect.bindRowKeys(lease.connection(), ps, 1, rowKeys.toArray(Long[]::new));
      long committed = -1;
      List<StoredRecord> rows = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          committed = rs.getLong(1);
          if (rs.getString(2) != null) {
            rows.add(SqlRows.row(rs, 2));
          }
        }
      }
      if (committed < 0) {
        throw new SQLException("the committed sequence was not read: " + sequence);
      }
      return new LiveRows(rows, committed);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  @Override
  public List<StoredRecord> scanLive(long afterRowKey, int limit) {
    return rowsAfter(
        SqlRows.ROW_COLUMNS + " WHERE pk > ? AND deleted = FALSE ORDER BY pk LIMIT ?",
        afterRowKey,
        limit);
  }

  @Override
  public List<StoredRecord> scanRows(long afterRowKey, int limit) {
    return rowsAfter(SqlRows.ROW_COLUMNS + " WHERE pk > ? ORDER BY pk LIMIT ?", afterRowKey, limit);
  }

  /** The rows {@code sql} selects with the parameters {@code after} and {@code limit}. */
  private List<StoredRecord> rowsAfter(String sql, long after, int limit) {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps = lease.connection().prepareStatement(sql)) {
      ps.setLong(1, after);
      ps.setInt(2, limit);
      return SqlRows.readRows(ps);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  @Override
  public List<VersionEntry> versionsAfter(long afterSeq, int limit) {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
                    SqlRows.VERSION_COLUMNS + " WHERE seq > ? ORDER BY seq LIMIT ?")) {
      ps.setLong(1, afterSeq);
      ps.setInt(2, limit);
      return SqlRows.readVersions(ps);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  @Override
  public List<SnapshotEntry> allSnapshots() {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(SqlRows.SNAPSHOT_COLUMNS + " ORDER BY seq, scope_key, name")) {
      return SqlRows.readSnapshots(ps);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  @Override
  public List<String> contentHashesAfter(String afterHash, int limit) {
    List<String> hashes = new ArrayList<>();
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
                    "SELECT hash FROM contents WHERE hash > ? ORDER BY hash LIMIT ?")) {
      ps.setString(1, afterHash);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          hashes.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
    return hashes;
  }

  @Override
  public long countLive() {
    try (SqlLease lease = dialect.lease();
        Statement s = lease.connection().createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM records WHERE deleted = FALSE")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  @Override
  public void putContent(ContentReference reference, byte[] bytes) {
    putContent(reference, bytes, null);
  }

  @Override
  public void putContent(ContentReference reference, byte[] bytes, String holder) {
    inTransaction(
        tx -> {
          try (PreparedStatement ps =
              connection(tx)
                  .prepareStatement(
                      dialect.insertOrKeep("contents", "hash, encoding, bytes, body", "hash"))) {
            ps.setString(1, reference.hash());
            ps.setString(2, reference.encoding());
            ps.setLong(3, reference.bytes());
            ps.setBytes(4, bytes);
            ps.executeUpdate();
          } catch (SQLException e) {
            throw new SqlFailure(e);
          }
          if (holder != null) {
            try (PreparedStatement ps =
                connection(tx)
                    .prepareStatement(
                        dialect.insertOrKeep("content_holders", "hash, holder", "hash, holder"))) {
              ps.setString(1, reference.hash());
              ps.setString(2, holder);
              ps.executeUpdate();
            } catch (SQLException e) {
              throw new SqlFailure(e);
            }
          }
          return null;
        });
  }

  @Override
  public boolean holdsContent(String hash, String holder) {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement("SELECT 1 FROM content_holders WHERE hash = ? AND holder = ?")) {
      ps.setString(1, hash);
      ps.setString(2, holder);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  @Override
  public Optional<StoredContent> getContent(String hash) {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement("SELECT encoding, bytes, body FROM contents WHERE hash = ?")) {
      ps.setString(1, hash);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new StoredContent(
                new ContentReference(hash, rs.getString(1), rs.getLong(2)), rs.getBytes(3)));
      }
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
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
