package dev.sgm.storage.h2;

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
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
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

/**
 * The embedded H2 store. Every unit of work is one JDBC transaction; commits are written through
 * before they return ({@code WRITE_DELAY=0}), so an acknowledged store survives the process being
 * killed; with {@code fsync} they are also forced to the disk, one sync shared by every commit
 * waiting ({@link GroupSync}), so it survives the machine losing power. Scopes are indexed by their
 * pairs, so descendants are found without scanning records.
 *
 * <p>A transaction's writes get their sequence numbers as it is about to commit ({@link
 * CommitSequence}), and its change-log and version-log entries are written then: so the sequence is
 * in commit order, and a follower reading up to {@link #committedSequence()} sees whole
 * transactions, never a later one before an earlier one.
 */
final class H2Storage implements Storage {
  private static final System.Logger LOG = System.getLogger(H2Storage.class.getName());
  private static final int MAX_ATTEMPTS = 20;

  /**
   * Settings of every connection: wait up to 10 s for a row lock held by another writer; keep the
   * parsed form of more statements than H2's default 8 (a store runs more than 8 distinct ones, and
   * parsing them again took a tenth of its time).
   */
  static final String SESSION_SETTINGS = "LOCK_TIMEOUT=10000;QUERY_CACHE_SIZE=64";

  private final H2Connections connections;
  private final H2Tokens tokens;
  private final String description;
  private final CommitSequence sequence;
  private final String identity;

  /** Changes at or below this sequence number may have been pruned. */
  private volatile long retainedAfter;

  private final Set<String> indexedScopes = ConcurrentHashMap.newKeySet();
  private final List<Runnable> commitListeners = new CopyOnWriteArrayList<>();

  /**
   * Forces commits to the disk before they are acknowledged; null when the OS having them is
   * enough.
   */
  private final GroupSync sync;

  H2Storage(String url, String description, boolean fsync) {
    this.description = description;
    this.connections = new H2Connections(url, 32);
    this.sync = fsync ? new GroupSync(connections::sync) : null;
    this.tokens = new H2Tokens(connections, this::awaitDurable);
    try {
      try (H2Connections.Lease lease = connections.lease()) {
        H2Schema.migrate(lease.connection());
      }
      this.sequence = new CommitSequence(lastSequence());
      this.identity = readIdentity();
      this.retainedAfter = readRetainedAfter();
    } catch (SQLException e) {
      connections.close();
      if (e.getErrorCode() == org.h2.api.ErrorCode.DATABASE_ALREADY_OPEN_1
          || String.valueOf(e.getMessage()).contains("already in use")) {
        throw new SgmException(
            ErrorCode.UNAVAILABLE,
            "the data store " + description + " is in use by another process");
      }
      throw new SgmException(
          ErrorCode.UNAVAILABLE,
          "the data store " + description + " cannot be opened: " + e.getMessage());
    }
  }

  /** The highest sequence number any table holds: writes from before the change log included. */
  private long lastSequence() throws SQLException {
    try (H2Connections.Lease lease = connections.lease();
        Statement s = lease.connection().createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT GREATEST((SELECT COALESCE(MAX(seq), 0) FROM records),"
                    + " (SELECT COALESCE(MAX(seq), 0) FROM changes),"
                    + " (SELECT COALESCE(MAX(seq), 0) FROM record_versions))")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** The {@code sgm_meta} entry of the highest sequence number pruned from the change log. */
  private static final String RETAINED_AFTER = "changes_retained_after";

  private long readRetainedAfter() throws SQLException {
    try (H2Connections.Lease lease = connections.lease();
        Statement s = lease.connection().createStatement();
        ResultSet rs =
            s.executeQuery("SELECT val FROM sgm_meta WHERE name = '" + RETAINED_AFTER + "'")) {
      return rs.next() ? Long.parseLong(rs.getString(1)) : 0;
    }
  }

  private String readIdentity() throws SQLException {
    try (H2Connections.Lease lease = connections.lease();
        Statement s = lease.connection().createStatement();
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
    try {
      return sequence.awaitSettled();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while waiting for commits");
    }
  }

  @Override
  public void onCommit(Runnable listener) {
    commitListeners.add(listener);
  }

  @Override
  public String describe() {
    return description;
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
      try (H2Connections.Lease lease = connections.lease()) {
        Connection connection = lease.connection();
        connection.setAutoCommit(false);
        Tx tx = new Tx(connection);
        CommitSequence.Range range = null;
        try {
          T result = work.apply(tx);
          if (!tx.logged.isEmpty()) {
            range = sequence.take(tx.logged.size());
            tx.writeLogs(range.first());
          }
          connection.commit();
          connection.setAutoCommit(true);
          awaitDurable();
          indexedScopes.addAll(tx.newScopes);
          if (range != null) {
            sequence.settle(range);
            range = null;
            commitListeners.forEach(Runnable::run);
          }
          return result;
        } catch (SqlFailure e) {
          rollback(connection);
          if (!retryable(e.sql()) || attempt >= MAX_ATTEMPTS) {
            throw storageError(e.sql());
          }
        } catch (RuntimeException | Error e) {
          rollback(connection);
          throw e;
        } catch (SQLException e) {
          rollback(connection);
          if (!retryable(e) || attempt >= MAX_ATTEMPTS) {
            throw storageError(e);
          }
        } finally {
          if (range != null) {
            // Abandoned: the numbers are never used, and followers need not wait for them.
            sequence.settle(range);
          }
        }
      } catch (SQLException e) {
        throw storageError(e);
      }
      backOff(attempt);
    }
  }

  /** Returns once what this thread committed is as durable as the store promises. */
  private void awaitDurable() {
    if (sync == null) {
      return;
    }
    try {
      sync.awaitDurable();
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  /** Syncs made so far ({@code fsync} only): for tests. */
  long syncs() {
    return sync == null ? 0 : sync.syncs();
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
      LOG.log(System.Logger.Level.WARNING, "rollback failed", e);
    }
  }

  /** Conflicts between concurrent transactions, which a retry resolves. */
  private static boolean retryable(SQLException e) {
    int code = e.getErrorCode();
    return code == org.h2.api.ErrorCode.DUPLICATE_KEY_1
        || code == org.h2.api.ErrorCode.CONCURRENT_UPDATE_1
        || code == org.h2.api.ErrorCode.DEADLOCK_1
        || code == org.h2.api.ErrorCode.LOCK_TIMEOUT_1
        || code == org.h2.api.ErrorCode.ROW_NOT_FOUND_IN_PRIMARY_INDEX;
  }

  /** Nothing of the SQL reaches a client; the details go to the log. */
  private static SgmException storageError(SQLException e) {
    LOG.log(System.Logger.Level.ERROR, "storage failure", e);
    return new SgmException(ErrorCode.INTERNAL, "the storage failed; see the server log");
  }

  private final class Tx implements StorageTransaction {
    private final Connection connection;
    private final Set<String> newScopes = new HashSet<>();

    /** What this transaction read, so that a write can check nobody changed it since. */
    private final Map<String, Optional<StoredRecord>> read = new HashMap<>();

    /** This transaction's writes, in order, to be numbered and logged as it commits. */
    private final List<Logged> logged = new ArrayList<>();

    Tx(Connection connection) {
      this.connection = connection;
    }

    @Override
    public Optional<StoredRecord> findForUpdate(Scope scope, String id) {
      try {
        Optional<StoredRecord> found = H2Storage.findForUpdate(connection, scope, id);
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
        // Seen absent in this transaction: insert, and let a concurrent insert fail it (and retry
        // it) on the unique key rather than overwrite a row this transaction never read.
        if (seen == null || seen.isPresent()) {
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "SELECT pk, deleted FROM records WHERE scope_key = ? AND id = ?")) {
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
          created = true;
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "INSERT INTO records(scope_key, id, type, version, created_us, updated_us,"
                      + " created_seq, seq, deleted, doc) VALUES (?, ?, ?, ?, ?, ?, 0, 0, ?, ?)",
                  Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, scopeKey);
            ps.setString(2, record.id());
            bindRow(ps, 3, record);
            ps.setBoolean(7, record.deleted());
            ps.setString(8, record.document());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
              keys.next();
              pk = keys.getLong(1);
            }
          }
        } else {
          // A row brought back from deletion counts as created now, for paging marks.
          created = wasDeleted && !record.deleted();
          // Optimistic check on top of the row lock: the row must still be as this transaction read
          // it, otherwise the whole unit of work is retried against the new state.
          StoredRecord before = seen == null ? null : seen.get();
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "UPDATE records SET type = ?, version = ?, created_us = ?, updated_us = ?,"
                      + " deleted = ?, doc = ? WHERE pk = ?"
                      + (seen == null
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
          H2Query.scopeCondition(
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
          H2Query.scopeCondition(
              "scope_key", scope, descendants ? ScopeMode.DESCENDANTS : ScopeMode.EXACT, params);
      params.add(seq);
      try (PreparedStatement ps =
          connection.prepareStatement(
              VERSION_COLUMNS
                  + " WHERE "
                  + condition
                  + " AND seq <= ? ORDER BY scope_key, id, seq DESC")) {
        bindAll(ps, params);
        List<VersionEntry> latest = new ArrayList<>();
        VersionEntry previous = null;
        for (VersionEntry entry : readVersions(ps)) {
          // Newest first within each record: keep the first entry of each.
          if (previous == null
              || !previous.id().equals(entry.id())
              || !previous.scope().equals(entry.scope())) {
            latest.add(entry);
          }
          previous = entry;
        }
        return latest;
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public long currentSequence() {
      return committedSequence();
    }

    @Override
    public void putSnapshot(SnapshotEntry snapshot) {
      try (PreparedStatement ps =
          connection.prepareStatement(
              "INSERT INTO snapshots(scope_key, name, descendants, seq, created_us, created_by)"
                  + " VALUES (?, ?, ?, ?, ?, ?)")) {
        ps.setString(1, snapshot.scope().canonical());
        ps.setString(2, snapshot.name());
        ps.setBoolean(3, snapshot.descendants());
        ps.setLong(4, snapshot.seq());
        ps.setLong(5, snapshot.createdMicros());
        ps.setString(6, snapshot.createdBy());
        ps.executeUpdate();
      } catch (SQLException e) {
        if (e.getErrorCode() == org.h2.api.ErrorCode.DUPLICATE_KEY_1
            && snapshot(snapshot.scope(), snapshot.name()).isPresent()) {
          throw new SgmException(
              ErrorCode.CONFLICT,
              "a snapshot named '"
                  + snapshot.name()
                  + "' exists in "
                  + snapshot.scope().canonical());
        }
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

    private static SQLException concurrentChange() {
      return new SQLException(
          "the row changed since this transaction read it",
          "40001",
          org.h2.api.ErrorCode.CONCURRENT_UPDATE_1);
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
                "INSERT INTO record_tags(scope_key, tag, pk) VALUES (?, ?, ?)")) {
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
                "MERGE INTO record_fields(scope_key, path, val, pk) KEY(scope_key, path, val, pk)"
                    + " VALUES (?, ?, ?, ?)")) {
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
              "MERGE INTO scope_pairs(pair, scope_key, pairs) KEY(pair, scope_key) VALUES (?, ?, ?)")) {
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
        StoredRecord row = null;
        try (PreparedStatement ps = connection.prepareStatement(FIND)) {
          row = find(ps, scope, id).orElse(null);
        }
        if (row != null) {
          deleteIndex(connection, row.rowKey());
          try (PreparedStatement ps =
              connection.prepareStatement("DELETE FROM records WHERE pk = ?")) {
            ps.setLong(1, row.rowKey());
            ps.executeUpdate();
          }
          logged.add(
              new Logged(
                  scope,
                  id,
                  row.type(),
                  row.version(),
                  // A removal has no record time of its own: the feed logs when it happened.
                  Math.max(
                      row.updatedMicros(),
                      dev.sgm.api.Timestamps.toMicros(java.time.Instant.now())),
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

  private static final String ROW_COLUMNS =
      "SELECT scope_key, id, type, version, created_us, updated_us, deleted, doc, pk, created_seq"
          + " FROM records";

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

  private static Optional<StoredRecord> findForUpdate(Connection connection, Scope scope, String id)
      throws SQLException {
    try (PreparedStatement ps = connection.prepareStatement(FIND + " FOR UPDATE")) {
      return find(ps, scope, id);
    }
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
    try (H2Connections.Lease lease = connections.lease()) {
      return find(lease.cached(FIND), scope, id);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public StoragePage query(StorageQuery query) {
    long mark = query.mark() >= 0 ? query.mark() : sequence.settled();
    H2Query sql = H2Query.build(query, mark);
    try (H2Connections.Lease lease = connections.lease()) {
      return page(lease.connection(), sql, mark);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  private static StoragePage page(Connection connection, H2Query sql, long mark)
      throws SQLException {
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
  }

  @Override
  public ChangeBatch changesAfter(long after, int limit) {
    long through = sequence.settled();
    List<Change> changes = new ArrayList<>();
    try (H2Connections.Lease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
                    "SELECT c.seq, c.kind, c.scope_key, c.id, r.scope_key, r.id, r.type, r.version,"
                        + " r.created_us, r.updated_us, r.deleted, r.doc, r.pk, r.created_seq,"
                        + " c.type, c.version, c.agent, c.at_us"
                        + " FROM changes c LEFT JOIN records r ON r.scope_key = c.scope_key AND"
                        + " r.id = c.id WHERE c.seq > ? AND c.seq <= ? ORDER BY c.seq LIMIT ?")) {
      ps.setLong(1, after);
      ps.setLong(2, through);
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          changes.add(
              new Change(
                  rs.getLong(1),
                  Change.Kind.fromWireName(rs.getString(2)),
                  Scope.parseCanonical(rs.getString(3)),
                  rs.getString(4),
                  rs.getString(15),
                  rs.getLong(16),
                  rs.getString(17),
                  rs.getLong(18),
                  rs.getString(5) == null ? null : row(rs, 5)));
        }
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
    // A full batch may stop short of what is settled; the next one goes on from its last change.
    long caughtUp = changes.size() == limit ? changes.get(changes.size() - 1).seq() : through;
    return new ChangeBatch(changes, Math.max(after, caughtUp));
  }

  @Override
  public long changesRetainedAfter() {
    return retainedAfter;
  }

  @Override
  public long pruneChangesBefore(long micros) {
    long settled = sequence.settled();
    long[] prunedAndThrough =
        inTransaction(
            tx -> {
              Connection c = ((Tx) tx).connection;
              try {
                long highest;
                try (PreparedStatement ps =
                    c.prepareStatement(
                        "SELECT COALESCE(MAX(seq), 0) FROM changes WHERE at_us < ? AND seq <= ?")) {
                  ps.setLong(1, micros);
                  ps.setLong(2, settled);
                  try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    highest = rs.getLong(1);
                  }
                }
                if (highest <= retainedAfter) {
                  return new long[] {0, retainedAfter};
                }
                long dropped;
                try (PreparedStatement ps =
                    c.prepareStatement("DELETE FROM changes WHERE seq <= ?")) {
                  ps.setLong(1, highest);
                  dropped = ps.executeUpdate();
                }
                try (PreparedStatement ps =
                    c.prepareStatement(
                        "MERGE INTO sgm_meta(name, val) KEY(name) VALUES ('"
                            + RETAINED_AFTER
                            + "', ?)")) {
                  ps.setString(1, Long.toString(highest));
                  ps.executeUpdate();
                }
                return new long[] {dropped, highest};
              } catch (SQLException e) {
                throw new SqlFailure(e);
              }
            });
    retainedAfter = Math.max(retainedAfter, prunedAndThrough[1]);
    return prunedAndThrough[0];
  }

  @Override
  public List<StoredRecord> live(Collection<Long> rowKeys) {
    if (rowKeys.isEmpty()) {
      return List.of();
    }
    List<StoredRecord> rows = new ArrayList<>(rowKeys.size());
    try (H2Connections.Lease lease = connections.lease()) {
      PreparedStatement ps = lease.cached(ROW_COLUMNS + " WHERE pk = ANY(?) AND deleted = FALSE");
      ps.setObject(1, rowKeys.toArray(Long[]::new));
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
    try (H2Connections.Lease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
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
    try (H2Connections.Lease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(ROW_COLUMNS + " WHERE pk > ? ORDER BY pk LIMIT ?")) {
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
    try (H2Connections.Lease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(VERSION_COLUMNS + " WHERE seq > ? ORDER BY seq LIMIT ?")) {
      ps.setLong(1, afterSeq);
      ps.setInt(2, limit);
      return readVersions(ps);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public List<SnapshotEntry> allSnapshots() {
    try (H2Connections.Lease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(SNAPSHOT_COLUMNS + " ORDER BY seq, scope_key, name")) {
      return readSnapshots(ps);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public List<String> contentHashesAfter(String afterHash, int limit) {
    List<String> hashes = new ArrayList<>();
    try (H2Connections.Lease lease = connections.lease();
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
      throw storageError(e);
    }
    return hashes;
  }

  @Override
  public long countLive() {
    try (H2Connections.Lease lease = connections.lease();
        Statement s = lease.connection().createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM records WHERE deleted = FALSE")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw storageError(e);
    }
  }

  @Override
  public void putContent(ContentReference reference, byte[] bytes) {
    inTransaction(
        tx -> {
          try (PreparedStatement ps =
              ((Tx) tx)
                  .connection.prepareStatement(
                      "MERGE INTO contents(hash, encoding, bytes, body) KEY(hash) VALUES (?, ?, ?, ?)")) {
            ps.setString(1, reference.hash());
            ps.setString(2, reference.encoding());
            ps.setLong(3, reference.bytes());
            ps.setBytes(4, bytes);
            ps.executeUpdate();
            return null;
          } catch (SQLException e) {
            throw new SqlFailure(e);
          }
        });
  }

  @Override
  public Optional<StoredContent> getContent(String hash) {
    try (H2Connections.Lease lease = connections.lease();
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
      throw storageError(e);
    }
  }

  @Override
  public Optional<dev.sgm.api.spi.TokenStore> tokens() {
    return Optional.of(tokens);
  }

  @Override
  public void close() {
    try (H2Connections.Lease lease = connections.lease();
        Statement s = lease.connection().createStatement()) {
      s.execute("SHUTDOWN");
    } catch (SQLException e) {
      LOG.log(System.Logger.Level.DEBUG, "shutdown of " + description + " reported", e);
    } finally {
      connections.close();
    }
  }
}
