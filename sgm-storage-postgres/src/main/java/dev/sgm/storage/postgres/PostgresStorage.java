package dev.sgm.storage.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sgm.api.ContentReference;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageQuery.Position;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.api.spi.WriteLog;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The store on a PostgreSQL server, which any number of nodes can share. Every unit of work is one
 * transaction at {@code READ COMMITTED}; a row read for update is locked until commit, and a
 * concurrent insert of the same identity fails on the unique key and the work is retried.
 *
 * <p>The write sequence is one counter row ({@code write_sequence}) that a committing transaction
 * updates as its last step and whose lock it holds until it commits. So numbers are handed out in
 * commit order across every node: everything at or below the counter's committed value has
 * committed, a follower reading up to it never sees a lower number appear later, and a transaction
 * that rolls back gives its numbers back (the log has no holes).
 */
final class PostgresStorage implements Storage {
  private static final System.Logger LOG = System.getLogger(PostgresStorage.class.getName());
  private static final int MAX_ATTEMPTS = 20;

  private final PostgresSettings settings;
  private final HikariDataSource pool;
  private final String identity;
  private final PostgresTokens tokens;
  private final Set<String> indexedScopes = ConcurrentHashMap.newKeySet();
  private final List<Runnable> commitListeners = new CopyOnWriteArrayList<>();

  PostgresStorage(PostgresSettings settings) {
    this.settings = settings;
    PGSimpleDataSource source = new PGSimpleDataSource();
    source.setURL(settings.url());
    source.setUser(settings.user());
    source.setPassword(settings.password());
    source.setConnectTimeout(settings.connectTimeoutSeconds());
    source.setLoginTimeout(settings.connectTimeoutSeconds());
    source.setApplicationName("sgm");
    HikariConfig config = new HikariConfig();
    config.setDataSource(source);
    config.setPoolName("sgm-postgres");
    config.setMaximumPoolSize(settings.poolSize());
    config.setMinimumIdle(Math.min(2, settings.poolSize()));
    // A database that is gone answers unavailable within this, instead of holding callers.
    config.setConnectionTimeout(settings.connectTimeoutSeconds() * 1000L);
    config.setValidationTimeout(Math.min(settings.connectTimeoutSeconds() * 1000L, 5000L));
    try {
      this.pool = new HikariDataSource(config);
    } catch (RuntimeException e) {
      if (e.getCause() instanceof SQLException sql) {
        throw settings.explain(sql);
      }
      throw new SgmException(
          ErrorCode.UNAVAILABLE,
          "PostgreSQL at " + settings.where() + " cannot be used: " + e.getMessage());
    }
    try {
      PostgresSchema.migrate(pool);
      this.identity = readIdentity();
      this.tokens = new PostgresTokens(pool, this::storageError);
    } catch (RuntimeException | SQLException e) {
      pool.close();
      LOG.log(System.Logger.Level.ERROR, "the schema of " + settings + " cannot be migrated", e);
      if (e instanceof SgmException sgm) {
        throw sgm;
      }
      throw new SgmException(
          ErrorCode.UNAVAILABLE,
          "the database "
              + settings.where()
              + " cannot be brought to this version's schema: "
              + rootMessage(e));
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return String.valueOf(root.getMessage());
  }

  private String readIdentity() throws SQLException {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT val FROM sgm_meta WHERE name = 'identity'")) {
      if (!rs.next()) {
        throw new SQLException("the store has no identity row in sgm_meta");
      }
      return rs.getString(1);
    }
  }

  @Override
  public String identity() {
    return identity;
  }

  @Override
  public long committedSequence() {
    try (Connection c = pool.getConnection()) {
      return lastNumber(c);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  private static long lastNumber(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT last FROM write_sequence")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public void onCommit(Runnable listener) {
    commitListeners.add(listener);
  }

  @Override
  public String describe() {
    return "postgres " + settings.where();
  }

  /** Wraps SQL failures inside transaction work so they reach the retry loop. */
  private static final class SqlFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    SqlFailure(SQLException cause) {
      super(cause);
    }

    SQLException sql() {
      return (SQLException) getCause();
    }
  }

  @Override
  public <T> T inTransaction(Function<StorageTransaction, T> work) {
    for (int attempt = 1; ; attempt++) {
      try (Connection connection = pool.getConnection()) {
        connection.setAutoCommit(false);
        Tx tx = new Tx(connection);
        try {
          T result = work.apply(tx);
          boolean wrote = !tx.logged.isEmpty();
          if (wrote) {
            tx.writeLogs(takeNumbers(connection, tx.logged.size()));
          }
          connection.commit();
          connection.setAutoCommit(true);
          indexedScopes.addAll(tx.newScopes);
          if (wrote) {
            commitListeners.forEach(Runnable::run);
          }
          return result;
        } catch (SqlFailure e) {
          rollback(connection);
          if (!retryable(e.sql()) || attempt >= MAX_ATTEMPTS) {
            throw storageError(e.sql());
          }
        } catch (SQLException e) {
          rollback(connection);
          if (!retryable(e) || attempt >= MAX_ATTEMPTS) {
            throw storageError(e);
          }
        } catch (RuntimeException | Error e) {
          rollback(connection);
          throw e;
        }
      } catch (SQLException e) {
        throw storageError(e);
      }
      backOff(attempt);
    }
  }

  /**
   * Takes {@code count} numbers from the shared counter as the transaction's last step; the row
   * lock this takes is held until the transaction ends, so the next taker commits after this one.
   */
  private static long takeNumbers(Connection connection, int count) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "UPDATE write_sequence SET last = last + ? RETURNING last - ? + 1")) {
      ps.setInt(1, count);
      ps.setInt(2, count);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static void backOff(int attempt) {
    try {
      Thread.sleep(Math.min(50, attempt * (long) (1 + Math.random() * 3)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while retrying a write");
    }
  }

  private static void rollback(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      LOG.log(System.Logger.Level.DEBUG, "rollback failed", e);
    }
  }

  /** Conflicts between concurrent transactions, which a retry resolves. */
  private static boolean retryable(SQLException e) {
    String state = String.valueOf(e.getSQLState());
    return state.equals("40001") // serialization_failure
        || state.equals("40P01") // deadlock_detected
        || state.equals("23505") // unique_violation: a concurrent insert of the same identity
        || state.equals("55P03"); // lock_not_available
  }

  /** Whether the failure is the database being out of reach rather than a fault. */
  static boolean unreachable(SQLException e) {
    String state = String.valueOf(e.getSQLState());
    return e instanceof SQLTransientConnectionException
        || state.startsWith("08") // connection_exception
        || state.equals("57P01") // admin_shutdown
        || state.equals("57P02") // crash_shutdown
        || state.equals("57P03") // cannot_connect_now
        || state.equals("53300"); // too_many_connections
  }

  /** Nothing of the SQL reaches a client; the details go to the log. */
  SgmException storageError(SQLException e) {
    if (unreachable(e)) {
      LOG.log(System.Logger.Level.WARNING, "the database is unavailable: " + e.getMessage());
      return new SgmException(
          ErrorCode.UNAVAILABLE,
          "the database " + settings.where() + " is unavailable; try again shortly");
    }
    LOG.log(System.Logger.Level.ERROR, "storage failure", e);
    return new SgmException(ErrorCode.INTERNAL, "the storage failed; see the server log");
  }

  private final class Tx implements StorageTransaction {
    private final Connection connection;
    private final Set<String> newScopes = new HashSet<>();

    /** What this transaction read for update (and so holds locked), by qualified identity. */
    private final Map<String, Optional<StoredRecord>> read = new HashMap<>();

    /** This transaction's writes, in order, to be numbered and logged as it commits. */
    private final List<Logged> logged = new ArrayList<>();

    Tx(Connection connection) {
      this.connection = connection;
    }

    @Override
    public Optional<StoredRecord> findForUpdate(Scope scope, String id) {
      try (PreparedStatement ps = connection.prepareStatement(FIND + " FOR UPDATE")) {
        Optional<StoredRecord> found = find(ps, scope, id);
        read.put(scope.qualify(id), found);
        return found;
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public void put(StoredRecord record, WriteLog log) {
      try {
        String scopeKey = record.scope().canonical();
        Optional<StoredRecord> seen = read.get(record.scope().qualify(record.id()));
        Long pk = null;
        boolean wasDeleted = false;
        if (seen != null && seen.isPresent()) {
          // Locked since it was read: it is still as read.
          pk = seen.get().rowKey();
          wasDeleted = seen.get().deleted();
        } else if (seen == null) {
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "SELECT pk, deleted FROM records WHERE scope_key = ? AND id = ? FOR UPDATE")) {
            ps.setString(1, scopeKey);
            ps.setString(2, record.id());
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                pk = rs.getLong(1);
                wasDeleted = rs.getBoolean(2);
              }
            }
          }
        }
        boolean created;
        if (pk == null) {
          // Seen absent: a concurrent insert of the same identity fails this one on the unique
          // key, and the whole unit of work is retried against the new state.
          created = true;
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "INSERT INTO records(scope_key, id, type, version, created_us, updated_us,"
                      + " created_seq, seq, deleted, doc) VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?)"
                      + " RETURNING pk")) {
            ps.setString(1, scopeKey);
            ps.setString(2, record.id());
            bindRow(ps, 3, record);
            ps.setBoolean(7, record.deleted());
            ps.setString(8, record.document());
            try (ResultSet keys = ps.executeQuery()) {
              keys.next();
              pk = keys.getLong(1);
            }
          }
        } else {
          // A row brought back from deletion counts as created now, for paging marks.
          created = wasDeleted && !record.deleted();
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "UPDATE records SET type = ?, version = ?, created_us = ?, updated_us = ?,"
                      + " deleted = ?, doc = ? WHERE pk = ?")) {
            bindRow(ps, 1, record);
            ps.setBoolean(5, record.deleted());
            ps.setString(6, record.document());
            ps.setLong(7, pk);
            ps.executeUpdate();
          }
          deleteIndex(connection, pk);
        }
        read.put(
            record.scope().qualify(record.id()),
            Optional.of(
                new StoredRecord(
                    record.scope(),
                    record.id(),
                    record.type(),
                    record.version(),
                    record.createdMicros(),
                    record.updatedMicros(),
                    record.deleted(),
                    record.document(),
                    RecordIndex.NONE,
                    pk,
                    0)));
        writeIndex(pk, scopeKey, record.index());
        indexScope(record.scope());
        logged.add(
            new Logged(
                record.scope(),
                record.id(),
                record.type(),
                record.version(),
                record.updatedMicros(),
                record.document(),
                record.deleted(),
                log,
                pk,
                created));
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    /**
     * Gives this transaction's writes their sequence numbers, from {@code first} on in the order
     * they were made, and writes what their logs say: called as the transaction is about to commit.
     */
    void writeLogs(long first) throws SQLException {
      try (PreparedStatement rows =
              connection.prepareStatement(
                  "UPDATE records SET seq = ?, created_seq = CASE WHEN ? THEN ? ELSE created_seq END"
                      + " WHERE pk = ?");
          PreparedStatement changes =
              connection.prepareStatement(
                  "INSERT INTO changes(seq, scope_key, id, kind, type, version, agent, at_us)"
                      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
          PreparedStatement versions =
              connection.prepareStatement(
                  "INSERT INTO record_versions(scope_key, id, seq, version, written_us, writer,"
                      + " deleted, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
        long seq = first;
        boolean anyRow = false;
        boolean anyVersion = false;
        for (Logged write : logged) {
          if (write.pk() != null) {
            rows.setLong(1, seq);
            rows.setBoolean(2, write.created());
            rows.setLong(3, seq);
            rows.setLong(4, write.pk());
            rows.addBatch();
            anyRow = true;
          }
          changes.setLong(1, seq);
          changes.setString(2, write.scope().canonical());
          changes.setString(3, write.id());
          changes.setString(4, write.log().kind().wireName());
          changes.setString(5, write.type());
          changes.setLong(6, write.version());
          changes.setString(7, write.log().writer());
          changes.setLong(8, write.micros());
          changes.addBatch();
          if (write.log().keepVersion()) {
            versions.setString(1, write.scope().canonical());
            versions.setString(2, write.id());
            versions.setLong(3, seq);
            versions.setLong(4, write.version());
            versions.setLong(5, write.micros());
            versions.setString(6, write.log().writer());
            versions.setBoolean(7, write.deleted());
            versions.setString(8, write.document());
            versions.addBatch();
            anyVersion = true;
          }
          seq++;
        }
        if (anyRow) {
          rows.executeBatch();
        }
        changes.executeBatch();
        if (anyVersion) {
          versions.executeBatch();
        }
      }
    }

    @Override
    public List<StoredRecord> rows(Scope scope, boolean descendants) {
      List<Object> params = new ArrayList<>();
      String condition =
          PostgresQuery.scopeCondition(
              "scope_key", scope, descendants ? ScopeMode.DESCENDANTS : ScopeMode.EXACT, params);
      List<StoredRecord> rows = new ArrayList<>();
      try (PreparedStatement ps =
          connection.prepareStatement(ROW_COLUMNS + " WHERE " + condition + " ORDER BY pk")) {
        bindAll(ps, params);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows.add(row(rs, 1));
          }
        }
        return rows;
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public List<VersionEntry> versions(Scope scope, String id, long beforeSeq, int limit) {
      try (PreparedStatement ps =
          connection.prepareStatement(
              VERSION_COLUMNS
                  + " WHERE scope_key = ? AND id = ? AND seq < ? ORDER BY seq DESC LIMIT ?")) {
        ps.setString(1, scope.canonical());
        ps.setString(2, id);
        ps.setLong(3, beforeSeq);
        ps.setInt(4, limit);
        return readVersions(ps);
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public List<VersionEntry> stateAt(Scope scope, boolean descendants, long seq) {
      List<Object> params = new ArrayList<>();
      String condition =
          PostgresQuery.scopeCondition(
              "scope_key", scope, descendants ? ScopeMode.DESCENDANTS : ScopeMode.EXACT, params);
      params.add(seq);
      try (PreparedStatement ps =
          connection.prepareStatement(
              "SELECT DISTINCT ON (scope_key, id) scope_key, id, version, seq, written_us, writer,"
                  + " deleted, doc FROM record_versions WHERE "
                  + condition
                  + " AND seq <= ? ORDER BY scope_key, id, seq DESC")) {
        bindAll(ps, params);
        return readVersions(ps);
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public long currentSequence() {
      try {
        return lastNumber(connection);
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public void putSnapshot(SnapshotEntry snapshot) {
      try (PreparedStatement ps =
          connection.prepareStatement(
              "INSERT INTO snapshots(scope_key, name, descendants, seq, created_us, created_by)"
                  + " VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (scope_key, name) DO NOTHING")) {
        ps.setString(1, snapshot.scope().canonical());
        ps.setString(2, snapshot.name());
        ps.setBoolean(3, snapshot.descendants());
        ps.setLong(4, snapshot.seq());
        ps.setLong(5, snapshot.createdMicros());
        ps.setString(6, snapshot.createdBy());
        if (ps.executeUpdate() == 0) {
          throw new SgmException(
              ErrorCode.CONFLICT,
              "a snapshot named '"
                  + snapshot.name()
                  + "' exists in "
                  + snapshot.scope().canonical());
        }
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public Optional<SnapshotEntry> snapshot(Scope scope, String name) {
      try (PreparedStatement ps =
          connection.prepareStatement(SNAPSHOT_COLUMNS + " WHERE scope_key = ? AND name = ?")) {
        ps.setString(1, scope.canonical());
        ps.setString(2, name);
        List<SnapshotEntry> found = readSnapshots(ps);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public List<SnapshotEntry> snapshots(Scope scope) {
      try (PreparedStatement ps =
          connection.prepareStatement(
              SNAPSHOT_COLUMNS + " WHERE scope_key = ? ORDER BY seq DESC, name")) {
        ps.setString(1, scope.canonical());
        return readSnapshots(ps);
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    private void bindRow(PreparedStatement ps, int first, StoredRecord record) throws SQLException {
      ps.setString(first, record.type());
      ps.setLong(first + 1, record.version());
      ps.setLong(first + 2, record.createdMicros());
      ps.setLong(first + 3, record.updatedMicros());
    }

    private void writeIndex(long pk, String scopeKey, RecordIndex index) throws SQLException {
      if (!index.tags().isEmpty()) {
        try (PreparedStatement ps =
            connection.prepareStatement(
                "INSERT INTO record_tags(scope_key, tag, pk) VALUES (?, ?, ?)"
                    + " ON CONFLICT DO NOTHING")) {
          for (String tag : index.tags()) {
            ps.setString(1, scopeKey);
            ps.setString(2, tag);
            ps.setLong(3, pk);
            ps.addBatch();
          }
          ps.executeBatch();
        }
      }
      if (!index.fields().isEmpty()) {
        try (PreparedStatement ps =
            connection.prepareStatement(
                "INSERT INTO record_fields(scope_key, path, val, pk) VALUES (?, ?, ?, ?)"
                    + " ON CONFLICT DO NOTHING")) {
          for (RecordIndex.FieldValue field : index.fields()) {
            ps.setString(1, scopeKey);
            ps.setString(2, field.path());
            ps.setString(3, field.value());
            ps.setLong(4, pk);
            ps.addBatch();
          }
          ps.executeBatch();
        }
      }
    }

    private void indexScope(Scope scope) throws SQLException {
      String key = scope.canonical();
      if (indexedScopes.contains(key) || newScopes.contains(key)) {
        return;
      }
      try (PreparedStatement ps =
          connection.prepareStatement(
              "INSERT INTO scope_pairs(pair, scope_key, pairs) VALUES (?, ?, ?)"
                  + " ON CONFLICT DO NOTHING")) {
        for (String pair : scope.canonicalPairs()) {
          ps.setString(1, pair);
          ps.setString(2, key);
          ps.setInt(3, scope.pairs().size());
          ps.addBatch();
        }
        ps.executeBatch();
      }
      newScopes.add(key);
    }

    @Override
    public void remove(Scope scope, String id, WriteLog log) {
      try {
        StoredRecord row;
        try (PreparedStatement ps = connection.prepareStatement(FIND + " FOR UPDATE")) {
          row = find(ps, scope, id).orElse(null);
        }
        if (row != null) {
          deleteIndex(connection, row.rowKey());
          try (PreparedStatement ps =
              connection.prepareStatement("DELETE FROM records WHERE pk = ?")) {
            ps.setLong(1, row.rowKey());
            ps.executeUpdate();
          }
          read.put(scope.qualify(id), Optional.empty());
          logged.add(
              new Logged(
                  scope,
                  id,
                  row.type(),
                  row.version(),
                  row.updatedMicros(),
                  row.document(),
                  true,
                  log,
                  null,
                  false));
        }
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }
  }

  /** One write of a transaction, waiting for its sequence number. */
  private record Logged(
      Scope scope,
      String id,
      String type,
      long version,
      long micros,
      String document,
      boolean deleted,
      WriteLog log,
      Long pk,
      boolean created) {}

  private static void deleteIndex(Connection connection, long pk) throws SQLException {
    for (String table : List.of("record_tags", "record_fields")) {
      try (PreparedStatement ps =
          connection.prepareStatement("DELETE FROM " + table + " WHERE pk = ?")) {
        ps.setLong(1, pk);
        ps.executeUpdate();
      }
    }
  }

  private static final String FIND =
      "SELECT type, version, created_us, updated_us, deleted, doc, pk, created_seq FROM records"
          + " WHERE scope_key = ? AND id = ?";

  private static final String VERSION_COLUMNS =
      "SELECT scope_key, id, version, seq, written_us, writer, deleted, doc FROM record_versions";

  private static final String SNAPSHOT_COLUMNS =
      "SELECT scope_key, name, descendants, seq, created_us, created_by FROM snapshots";

  private static final String ROW_COLUMNS =
      "SELECT scope_key, id, type, version, created_us, updated_us, deleted, doc, pk, created_seq"
          + " FROM records";

  private static List<VersionEntry> readVersions(PreparedStatement ps) throws SQLException {
    List<VersionEntry> entries = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        entries.add(
            new VersionEntry(
                Scope.parseCanonical(rs.getString(1)),
                rs.getString(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getString(6),
                rs.getBoolean(7),
                rs.getString(8)));
      }
    }
    return entries;
  }

  private static List<SnapshotEntry> readSnapshots(PreparedStatement ps) throws SQLException {
    List<SnapshotEntry> entries = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        entries.add(
            new SnapshotEntry(
                Scope.parseCanonical(rs.getString(1)),
                rs.getString(2),
                rs.getBoolean(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getString(6)));
      }
    }
    return entries;
  }

  private static void bindAll(PreparedStatement ps, List<Object> params) throws SQLException {
    for (int i = 0; i < params.size(); i++) {
      ps.setObject(i + 1, params.get(i));
    }
  }

  /** A row read from {@link #ROW_COLUMNS}' columns, starting at column {@code first}. */
  private static StoredRecord row(ResultSet rs, int first) throws SQLException {
    return new StoredRecord(
        Scope.parseCanonical(rs.getString(first)),
        rs.getString(first + 1),
        rs.getString(first + 2),
        rs.getLong(first + 3),
        rs.getLong(first + 4),
        rs.getLong(first + 5),
        rs.getBoolean(first + 6),
        rs.getString(first + 7),
        RecordIndex.NONE,
        rs.getLong(first + 8),
        rs.getLong(first + 9));
  }

  private static Optional<StoredRecord> find(PreparedStatement ps, Scope scope, String id)
      throws SQLException {
    ps.setString(1, scope.canonical());
    ps.setString(2, id);
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(
          new StoredRecord(
              scope,
              id,
              rs.getString(1),
              rs.getLong(2),
              rs.getLong(3),
              rs.getLong(4),
              rs.getBoolean(5),
              rs.getString(6),
              RecordIndex.NONE,
              rs.getLong(7),
              rs.getLong(8)));
    }
  }

  @Override
  public Optional<StoredRecord> find(Scope scope, String id) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement(FIND)) {
      return find(ps, scope, id);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public StoragePage query(StorageQuery query) {
    try (Connection c = pool.getConnection()) {
      long mark = query.mark() >= 0 ? query.mark() : lastNumber(c);
      PostgresQuery sql = PostgresQuery.build(query, mark);
      long total;
      try (PreparedStatement ps = c.prepareStatement(sql.countSql())) {
        sql.bindCount(ps);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          total = rs.getLong(1);
        }
      }
      List<StoragePage.Row> rows = new ArrayList<>();
      if (total > 0) {
        try (PreparedStatement ps = c.prepareStatement(sql.pageSql())) {
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
      throw storageError(e);
    }
  }

  @Override
  public ChangeBatch changesAfter(long after, int limit) {
    // One statement, so one snapshot: every change at or below the counter it reads is visible.
    List<Change> changes = new ArrayList<>();
    long through = after;
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT s.last, x.* FROM (SELECT last FROM write_sequence) s LEFT JOIN LATERAL"
                    + " (SELECT c.seq, c.kind, c.scope_key AS change_scope, c.id AS change_id,"
                    + " r.scope_key, r.id, r.type, r.version, r.created_us, r.updated_us,"
                    + " r.deleted, r.doc, r.pk, r.created_seq, c.type AS change_type,"
                    + " c.version AS change_version, c.agent, c.at_us FROM changes c"
                    + " LEFT JOIN records r"
                    + " ON r.scope_key = c.scope_key AND r.id = c.id"
                    + " WHERE c.seq > ? AND c.seq <= s.last ORDER BY c.seq LIMIT ?) x ON TRUE"
                    + " ORDER BY x.seq")) {
      ps.setLong(1, after);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          through = Math.max(through, rs.getLong(1));
          if (rs.getObject(2) == null) {
            continue;
          }
          // What the write was (type, version, writer, time) as logged, and the row as it is now.
          changes.add(
              new Change(
                  rs.getLong(2),
                  Change.Kind.fromWireName(rs.getString(3)),
                  Scope.parseCanonical(rs.getString(4)),
                  rs.getString(5),
                  rs.getString(16),
                  rs.getLong(17),
                  rs.getString(18),
                  rs.getLong(19),
                  rs.getString(6) == null ? null : row(rs, 6)));
        }
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
    // A full batch may stop short of what is committed; the next one goes on from its last change.
    long caughtUp = changes.size() == limit ? changes.get(changes.size() - 1).seq() : through;
    return new ChangeBatch(changes, Math.max(after, caughtUp));
  }

  /**
   * The {@code sgm_meta} entry of the highest sequence number pruned from the change log: kept in
   * the database, so that every node refuses a cursor that any node's pruning has passed.
   */
  private static final String RETAINED_AFTER = "changes_retained_after";

  @Override
  public long changesRetainedAfter() {
    try (Connection c = pool.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT val FROM sgm_meta WHERE name = ?")) {
      ps.setString(1, RETAINED_AFTER);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Long.parseLong(rs.getString(1)) : 0;
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  /**
   * One transaction that first locks the retention entry, so that nodes pruning at once take turns
   * and the entry only ever rises. Only committed changes are dropped: every number at or below the
   * counter's committed value has committed.
   */
  @Override
  public long pruneChangesBefore(long micros) {
    return inTransaction(
        tx -> {
          Connection c = ((Tx) tx).connection;
          try {
            long retained;
            try (PreparedStatement ps =
                c.prepareStatement(
                    "INSERT INTO sgm_meta(name, val) VALUES (?, '0') ON CONFLICT (name) DO NOTHING")) {
              ps.setString(1, RETAINED_AFTER);
              ps.executeUpdate();
            }
            try (PreparedStatement ps =
                c.prepareStatement("SELECT val FROM sgm_meta WHERE name = ? FOR UPDATE")) {
              ps.setString(1, RETAINED_AFTER);
              try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                retained = Long.parseLong(rs.getString(1));
              }
            }
            long highest;
            try (PreparedStatement ps =
                c.prepareStatement(
                    "SELECT COALESCE(MAX(seq), 0) FROM changes WHERE at_us < ?"
                        + " AND seq <= (SELECT last FROM write_sequence)")) {
              ps.setLong(1, micros);
              try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                highest = rs.getLong(1);
              }
            }
            if (highest <= retained) {
              return 0L;
            }
            long dropped;
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM changes WHERE seq <= ?")) {
              ps.setLong(1, highest);
              dropped = ps.executeUpdate();
            }
            try (PreparedStatement ps =
                c.prepareStatement("UPDATE sgm_meta SET val = ? WHERE name = ?")) {
              ps.setString(1, Long.toString(highest));
              ps.setString(2, RETAINED_AFTER);
              ps.executeUpdate();
            }
            return dropped;
          } catch (SQLException e) {
            throw new SqlFailure(e);
          }
        });
  }

  @Override
  public Optional<dev.sgm.api.spi.TokenStore> tokens() {
    return Optional.of(tokens);
  }

  @Override
  public List<StoredRecord> live(Collection<Long> rowKeys) {
    if (rowKeys.isEmpty()) {
      return List.of();
    }
    List<StoredRecord> rows = new ArrayList<>(rowKeys.size());
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(ROW_COLUMNS + " WHERE pk = ANY(?) AND deleted = FALSE")) {
      Array keys = c.createArrayOf("bigint", rowKeys.toArray(Long[]::new));
      ps.setArray(1, keys);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs, 1));
        }
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
    return rows;
  }

  @Override
  public List<StoredRecord> scanLive(long afterRowKey, int limit) {
    List<StoredRecord> rows = new ArrayList<>();
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                ROW_COLUMNS + " WHERE pk > ? AND deleted = FALSE ORDER BY pk LIMIT ?")) {
      ps.setLong(1, afterRowKey);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs, 1));
        }
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
    return rows;
  }

  @Override
  public List<StoredRecord> scanRows(long afterRowKey, int limit) {
    List<StoredRecord> rows = new ArrayList<>();
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(ROW_COLUMNS + " WHERE pk > ? ORDER BY pk LIMIT ?")) {
      ps.setLong(1, afterRowKey);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          rows.add(row(rs, 1));
        }
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
    return rows;
  }

  @Override
  public List<VersionEntry> versionsAfter(long afterSeq, int limit) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(VERSION_COLUMNS + " WHERE seq > ? ORDER BY seq LIMIT ?")) {
      ps.setLong(1, afterSeq);
      ps.setInt(2, limit);
      return readVersions(ps);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public List<SnapshotEntry> allSnapshots() {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(SNAPSHOT_COLUMNS + " ORDER BY seq, scope_key, name")) {
      return readSnapshots(ps);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public List<String> contentHashesAfter(String afterHash, int limit) {
    List<String> hashes = new ArrayList<>();
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT hash FROM contents WHERE hash > ? ORDER BY hash LIMIT ?")) {
      ps.setString(1, afterHash);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          hashes.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
    return hashes;
  }

  @Override
  public long countLive() {
    try (Connection c = pool.getConnection();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM records WHERE deleted = FALSE")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public void putContent(ContentReference reference, byte[] bytes) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "INSERT INTO contents(hash, encoding, bytes, body) VALUES (?, ?, ?, ?)"
                    + " ON CONFLICT (hash) DO NOTHING")) {
      ps.setString(1, reference.hash());
      ps.setString(2, reference.encoding());
      ps.setLong(3, reference.bytes());
      ps.setBytes(4, bytes);
      ps.executeUpdate();
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public Optional<StoredContent> getContent(String hash) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT encoding, bytes, body FROM contents WHERE hash = ?")) {
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
      throw storageError(e);
    }
  }

  /** A connection from the pool that the server still answers on. */
  @Override
  public void checkAvailable() {
    try (Connection c = pool.getConnection()) {
      if (!c.isValid(settings.connectTimeoutSeconds())) {
        throw storageError(new SQLTransientConnectionException("the connection is not valid"));
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public void close() {
    pool.close();
  }
}
