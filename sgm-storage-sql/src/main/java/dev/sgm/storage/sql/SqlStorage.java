package dev.sgm.storage.sql;

import dev.sgm.api.ContentReference;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoredContent;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageQuery.Position;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.TokenStore;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.api.spi.WriteLog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
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
  private static final int MAX_ATTEMPTS = 20;

  private final SqlDialect dialect;
  private final SqlSequencer sequencer;

  /** Under the dialect's name, so that the log says which store failed. */
  private final System.Logger log;

  private final Set<String> indexedScopes = ConcurrentHashMap.newKeySet();
  private final List<Runnable> commitListeners = new CopyOnWriteArrayList<>();

  /** The most units of work that share one commit. */
  private static final int MAX_GROUP = 32;

  /**
   * The most row keys {@link #live} binds to one query; more are asked in turn. H2 refuses an array
   * of more than 65,536 values.
   */
  static final int LIVE_KEYS_PER_QUERY = 10_000;

  /** Concurrent short units of work gathered to share a commit, or null when they never do. */
  private final CommitGroups groups;

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
    this.log = System.getLogger(dialect.getClass().getName());
    this.sequencer = new SqlSequencer(dialect);
    this.groups = commitGroups > 0 ? new CommitGroups(commitGroups, MAX_GROUP) : null;
  }

  /** The database this store runs on. */
  public SqlDialect dialect() {
    return dialect;
  }

  /**
   * Commits the transaction of {@code txs}: numbers their writes in commit order and writes their
   * logs ({@link SqlSequencer#commit}), then commits, as its last step.
   *
   * @return the numbers the writes got, or null when there were none; the caller hands them to
   *     {@link #publish} (on failure this method has settled them itself)
   */
  private SqlSequencer.Numbers commit(Connection connection, List<Tx> txs) throws SQLException {
    List<LoggedWrite> writes = new ArrayList<>();
    for (Tx tx : txs) {
      writes.addAll(tx.logged);
    }
    return sequencer.commit(connection, writes);
  }

  /**
   * After {@link #commit}: makes the commit as durable as promised ({@link
   * SqlDialect#afterCommit}), settles its numbers (whatever happens) and tells the commit
   * listeners.
   */
  private void publish(Connection connection, List<Tx> txs, SqlSequencer.Numbers numbers)
      throws SQLException {
    try {
      connection.setAutoCommit(true);
      dialect.afterCommit();
      for (Tx tx : txs) {
        indexedScopes.addAll(tx.newScopes);
      }
    } finally {
      if (numbers != null) {
        numbers.settle();
      }
    }
    if (numbers != null) {
      commitListeners.forEach(Runnable::run);
    }
  }

  /** The time the change log gives a removal of {@code row}: when it happened. */
  private static long removalMicros(StoredRecord row) {
    // A removal has no record time of its own.
    return Math.max(row.updatedMicros(), Timestamps.toMicros(Instant.now()));
  }

  /**
   * The connection a unit of work of a {@link SqlStorage} runs on, for its dialect to write with
   * (so {@link SqlDialect#beforeWrite} runs first).
   */
  public static Connection connection(StorageTransaction tx) {
    return ((Tx) tx).writingConnection();
  }

  @Override
  public void onCommit(Runnable listener) {
    commitListeners.add(listener);
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
   * Runs {@code work} as one transaction, again when it conflicts with a concurrent one; when it
   * ends, however it ended, the dialect may give up what the unit took ({@link
   * SqlDialect#afterWork}).
   */
  @Override
  public <T> T inTransaction(Function<StorageTransaction, T> work) {
    try {
      return attempts(work);
    } finally {
      dialect.afterWork();
    }
  }

  private <T> T attempts(Function<StorageTransaction, T> work) {
    for (int attempt = 1; ; attempt++) {
      try (SqlLease lease = dialect.lease()) {
        Connection connection = lease.connection();
        connection.setAutoCommit(false);
        Tx tx = new Tx(lease);
        try {
          T result = work.apply(tx);
          List<Tx> txs = List.of(tx);
          publish(connection, txs, commit(connection, txs));
          return result;
        } catch (SqlFailure e) {
          rollback(connection);
          if (!conflict(e.sql()) || attempt >= MAX_ATTEMPTS) {
            throw dialect.storageError(e.sql());
          }
        } catch (RuntimeException | Error e) {
          rollback(connection);
          throw e;
        } catch (SQLException e) {
          rollback(connection);
          if (!conflict(e) || attempt >= MAX_ATTEMPTS) {
            throw dialect.storageError(e);
          }
        }
      } catch (SQLException e) {
        throw dialect.storageError(e);
      }
      backOff(attempt);
    }
  }

  /**
   * Shares a commit with other callers' concurrent short units when this store gathers them (see
   * the constructor); otherwise {@link #inTransaction}.
   */
  @Override
  public <T> T inShortTransaction(Function<StorageTransaction, T> work) {
    return groups == null
        ? inTransaction(work)
        : groups.run(work, this::inTransaction, this::runGroup);
  }

  /**
   * Runs a group of units of work: one alone as {@link #inTransaction} does; several one after
   * another in one transaction, numbered in that order and committed once. When any of them fails,
   * or the commit does, the transaction rolls back and each unit runs again in a transaction of its
   * own, so that a failing unit fails alone with the outcome it would have had, and the others
   * succeed.
   */
  private void runGroup(List<CommitGroups.Unit> group) {
    if (group.size() == 1) {
      CommitGroups.Unit unit = group.get(0);
      try {
        unit.succeed(inTransaction(unit.work));
      } catch (RuntimeException | Error e) {
        unit.fail(e);
      }
      return;
    }
    List<Object> results = new ArrayList<>(group.size());
    List<Tx> txs = new ArrayList<>(group.size());
    boolean committed = false;
    try (SqlLease lease = dialect.lease()) {
      Connection connection = lease.connection();
      connection.setAutoCommit(false);
      try {
        for (CommitGroups.Unit unit : group) {
          Tx tx = new Tx(lease);
          results.add(unit.work.apply(tx));
          txs.add(tx);
        }
        SqlSequencer.Numbers numbers = commit(connection, txs);
        committed = true;
        publish(connection, txs, numbers);
      } catch (RuntimeException | Error | SQLException e) {
        if (committed) {
          // Committed, but not made as durable as promised: every unit says so, as alone.
          Throwable failure = e instanceof SQLException sql ? dialect.storageError(sql) : e;
          group.forEach(unit -> unit.fail(failure));
          return;
        }
        rollback(connection);
      }
    } catch (SQLException e) {
      if (committed) {
        // Only giving the connection back failed: the commit stands.
        log.log(System.Logger.Level.DEBUG, "a connection could not be given back", e);
      }
    }
    for (int i = 0; i < group.size(); i++) {
      if (committed) {
        group.get(i).succeed(results.get(i));
      } else {
        group.get(i).runAlone();
      }
    }
  }

  private boolean conflict(SQLException e) {
    return CONCURRENT_CHANGE.equals(e.getSQLState()) || dialect.retryable(e);
  }

  private static void backOff(int attempt) {
    try {
      Thread.sleep(Math.min(50, attempt * (long) (1 + Math.random() * 3)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while retrying a write");
    }
  }

  private void rollback(Connection connection) {
    try {
      connection.rollback();
    } catch (SQLException e) {
      log.log(
          dialect.unreachable(e) ? System.Logger.Level.DEBUG : System.Logger.Level.WARNING,
          "rollback failed",
          e);
    }
  }

  /** The SQL state of a row that changed since this transaction read it: a conflict to retry. */
  private static final String CONCURRENT_CHANGE = "40001";

  private static SQLException concurrentChange() {
    return new SQLException("the row changed since this transaction read it", CONCURRENT_CHANGE);
  }

  private final class Tx implements StorageTransaction {
    private final SqlLease lease;
    private final Connection connection;
    private final Set<String> newScopes = new HashSet<>();

    /**
     * What this transaction read or wrote, by qualified identity: so that a write can check nobody
     * changed it since (or trust it, where a row read for update stays locked).
     */
    private final Map<String, Optional<StoredRecord>> read = new HashMap<>();

    /** This transaction's writes, in order, to be numbered and logged as it commits. */
    private final List<LoggedWrite> logged = new ArrayList<>();

    Tx(SqlLease lease) {
      this.lease = lease;
      this.connection = lease.connection();
    }

    /** The connection, for a write the dialect makes in this unit: its turn is taken first. */
    private Connection writingConnection() {
      dialect.beforeWrite();
      return connection;
    }

    /**
     * A read of one record for this transaction, {@code FOR UPDATE} where rows stay as read: kept
     * with the connection, because H2 parses a locking query again on every prepare (its own cache
     * keeps no locking query), which cost a tenth of a single store.
     */
    private PreparedStatement findStatement(boolean forUpdate) throws SQLException {
      return lease.cached(SqlRows.FIND + (forUpdate ? " FOR UPDATE" : ""));
    }

    @Override
    public Optional<StoredRecord> findForUpdate(Scope scope, String id) {
      dialect.beforeWrite();
      try {
        Optional<StoredRecord> found = SqlRows.find(findStatement(true), scope, id);
        read.put(scope.qualify(id), found);
        return found;
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public void put(StoredRecord record, WriteLog log) {
      dialect.beforeWrite();
      try {
        String scopeKey = record.scope().canonical();
        Optional<StoredRecord> seen = read.get(record.scope().qualify(record.id()));
        Long pk = null;
        boolean wasDeleted = false;
        if (seen != null && seen.isPresent() && dialect.rowsStayAsRead()) {
          // Locked since it was read: it is still as read.
          pk = seen.get().rowKey();
          wasDeleted = seen.get().deleted();
        } else if (seen == null || seen.isPresent()) {
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "SELECT pk, deleted FROM records WHERE scope_key = ? AND id = ?"
                      + (dialect.rowsStayAsRead() ? " FOR UPDATE" : ""))) {
            ps.setString(1, scopeKey);
            ps.setString(2, record.id());
            try (ResultSet rs = ps.executeQuery()) {
              if (rs.next()) {
                pk = rs.getLong(1);
                wasDeleted = rs.getBoolean(2);
              }
            }
          }
          if (pk == null && seen != null) {
            throw concurrentChange();
          }
        }
        boolean created;
        if (pk == null) {
          // Seen absent in this transaction: insert, and let a concurrent insert fail it (and retry
          // it) on the unique key rather than overwrite a row this transaction never read.
          created = true;
          pk = insert(record, scopeKey);
        } else {
          // A row brought back from deletion counts as created now, for paging marks.
          created = wasDeleted && !record.deleted();
          // Where a row read is not locked, check on top of the update's own row lock that it is
          // still as this transaction read it, otherwise the whole unit of work is retried.
          StoredRecord before = seen == null || dialect.rowsStayAsRead() ? null : seen.get();
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "UPDATE records SET type = ?, version = ?, created_us = ?, updated_us = ?,"
                      + " deleted = ?, doc = ? WHERE pk = ?"
                      + (before == null
                          ? ""
                          : " AND version = ? AND deleted = ? AND updated_us = ?"))) {
            bindRow(ps, 1, record);
            ps.setBoolean(5, record.deleted());
            ps.setString(6, record.document());
            ps.setLong(7, pk);
            if (before != null) {
              ps.setLong(8, before.version());
              ps.setBoolean(9, before.deleted());
              ps.setLong(10, before.updatedMicros());
            }
            if (ps.executeUpdate() == 0) {
              throw concurrentChange();
            }
          }
          deleteIndex(connection, pk);
        }
        writeIndex(pk, scopeKey, record.index());
        indexScope(record.scope());
        // As this transaction has now left it, for a later write of the same record in it.
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
        logged.add(
            new LoggedWrite(
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

    /** Inserts {@code record}'s row and returns its key. */
    private long insert(StoredRecord record, String scopeKey) throws SQLException {
      try (PreparedStatement ps =
          connection.prepareStatement(
              "INSERT INTO records(scope_key, id, type, version, created_us, updated_us,"
                  + " created_seq, seq, deleted, doc) VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?)",
              new String[] {"pk"})) {
        ps.setString(1, scopeKey);
        ps.setString(2, record.id());
        bindRow(ps, 3, record);
        ps.setBoolean(7, record.deleted());
        ps.setString(8, record.document());
        ps.executeUpdate();
        try (ResultSet keys = ps.getGeneratedKeys()) {
          keys.next();
          return keys.getLong(1);
        }
      }
    }

    @Override
    public List<StoredRecord> rows(Scope scope, boolean descendants) {
      List<Object> params = new ArrayList<>();
      String condition =
          SqlQuery.scopeCondition(
              "scope_key", scope, descendants ? ScopeMode.DESCENDANTS : ScopeMode.EXACT, params);
      try (PreparedStatement ps =
          connection.prepareStatement(
              SqlRows.ROW_COLUMNS + " WHERE " + condition + " ORDER BY pk")) {
        SqlRows.bindAll(ps, params);
        return SqlRows.readRows(ps);
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public List<VersionEntry> versions(Scope scope, String id, long beforeSeq, int limit) {
      try (PreparedStatement ps =
          connection.prepareStatement(
              SqlRows.VERSION_COLUMNS
                  + " WHERE scope_key = ? AND id = ? AND seq < ? ORDER BY seq DESC LIMIT ?")) {
        ps.setString(1, scope.canonical());
        ps.setString(2, id);
        ps.setLong(3, beforeSeq);
        ps.setInt(4, limit);
        return SqlRows.readVersions(ps);
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public List<VersionEntry> stateAt(Scope scope, boolean descendants, long seq) {
      List<Object> params = new ArrayList<>();
      String condition =
          SqlQuery.scopeCondition(
              "scope_key", scope, descendants ? ScopeMode.DESCENDANTS : ScopeMode.EXACT, params);
      params.add(seq);
      try {
        return dialect.latestVersions(connection, condition + " AND seq <= ?", params);
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public long currentSequence() {
      try {
        return dialect.currentSequence(connection);
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public void putSnapshot(SnapshotEntry snapshot) {
      dialect.beforeWrite();
      try (PreparedStatement ps =
          connection.prepareStatement(
              dialect.insertNew(
                  "snapshots", "scope_key, name, descendants, seq, created_us, created_by"))) {
        ps.setString(1, snapshot.scope().canonical());
        ps.setString(2, snapshot.name());
        ps.setBoolean(3, snapshot.descendants());
        ps.setLong(4, snapshot.seq());
        ps.setLong(5, snapshot.createdMicros());
        ps.setString(6, snapshot.createdBy());
        if (ps.executeUpdate() == 0) {
          throw snapshotExists(snapshot);
        }
      } catch (SQLException e) {
        // A duplicate of a snapshot not yet visible is a concurrent one: retried as a conflict.
        if (dialect.uniqueViolation(e) && snapshot(snapshot.scope(), snapshot.name()).isPresent()) {
          throw snapshotExists(snapshot);
        }
        throw new SqlFailure(e);
      }
    }

    private static SgmException snapshotExists(SnapshotEntry snapshot) {
      return new SgmException(
          ErrorCode.CONFLICT,
          "a snapshot named '" + snapshot.name() + "' exists in " + snapshot.scope().canonical());
    }

    @Override
    public Optional<SnapshotEntry> snapshot(Scope scope, String name) {
      try (PreparedStatement ps =
          connection.prepareStatement(
              SqlRows.SNAPSHOT_COLUMNS + " WHERE scope_key = ? AND name = ?")) {
        ps.setString(1, scope.canonical());
        ps.setString(2, name);
        List<SnapshotEntry> found = SqlRows.readSnapshots(ps);
        return found.isEmpty() ? Optional.empty() : Optional.of(found.get(0));
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public List<SnapshotEntry> snapshots(Scope scope) {
      try (PreparedStatement ps =
          connection.prepareStatement(
              SqlRows.SNAPSHOT_COLUMNS + " WHERE scope_key = ? ORDER BY seq DESC, name")) {
        ps.setString(1, scope.canonical());
        return SqlRows.readSnapshots(ps);
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
            connection.prepareStatement(dialect.insertNew("record_tags", "scope_key, tag, pk"))) {
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
                dialect.insertOrKeep(
                    "record_fields", "scope_key, path, val, pk", "scope_key, path, val, pk"))) {
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
              dialect.insertOrKeep("scope_pairs", "pair, scope_key, pairs", "pair, scope_key"))) {
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
      dialect.beforeWrite();
      try {
        StoredRecord row =
            SqlRows.find(findStatement(dialect.rowsStayAsRead()), scope, id).orElse(null);
        if (row != null) {
          deleteIndex(connection, row.rowKey());
          try (PreparedStatement ps =
              connection.prepareStatement("DELETE FROM records WHERE pk = ?")) {
            ps.setLong(1, row.rowKey());
            ps.executeUpdate();
          }
          read.put(scope.qualify(id), Optional.empty());
          logged.add(
              new LoggedWrite(
                  scope,
                  id,
                  row.type(),
                  row.version(),
                  removalMicros(row),
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

  private static void deleteIndex(Connection connection, long pk) throws SQLException {
    for (String table : List.of("record_tags", "record_fields")) {
      try (PreparedStatement ps =
          connection.prepareStatement("DELETE FROM " + table + " WHERE pk = ?")) {
        ps.setLong(1, pk);
        ps.executeUpdate();
      }
    }
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
