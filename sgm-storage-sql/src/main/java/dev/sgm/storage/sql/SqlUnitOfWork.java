package dev.sgm.storage.sql;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.api.spi.WriteLog;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One unit of work of a {@link SqlStorage}, on one connection inside its transaction: the reads and
 * writes it makes of records, their indexes, versions and snapshots, and the writes it leaves to be
 * numbered and logged as it commits ({@link SqlSequencer}). A write trusts or checks what this
 * transaction read before it, as the dialect's locking allows ({@link SqlDialect#rowsStayAsRead}).
 */
final class SqlUnitOfWork implements StorageTransaction {
  /** The SQL state of a row that changed since this transaction read it: a conflict to retry. */
  static final String CONCURRENT_CHANGE = "40001";

  private final SqlDialect dialect;
  private final SqlLease lease;
  private final Connection connection;

  /** Every scope known to be in the scope-pair index: kept across units, to skip writing it. */
  private final Set<String> indexedScopes;

  /** The scopes this unit put in the scope-pair index: indexed for every unit once it commits. */
  private final Set<String> newScopes = new HashSet<>();

  /**
   * What this transaction read or wrote, by qualified identity: so that a write can check nobody
   * changed it since (or trust it, where a row read for update stays locked).
   */
  private final Map<String, Optional<StoredRecord>> read = new HashMap<>();

  /** This transaction's writes, in order, to be numbered and logged as it commits. */
  private final List<LoggedWrite> logged = new ArrayList<>();

  SqlUnitOfWork(SqlDialect dialect, SqlLease lease, Set<String> indexedScopes) {
    this.dialect = dialect;
    this.lease = lease;
    this.connection = lease.connection();
    this.indexedScopes = indexedScopes;
  }

  /** This unit's writes, in the order they were made. */
  List<LoggedWrite> logged() {
    return logged;
  }

  /** The scopes this unit added to the scope-pair index. */
  Set<String> newScopes() {
    return newScopes;
  }

  /** The connection, for a write the dialect makes in this unit: its turn is taken first. */
  Connection writingConnection() {
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
      RowState existing = existingRow(record, scopeKey, seen);
      long pk;
      boolean created;
      if (existing == null) {
        // Seen absent in this transaction: insert, and let a concurrent insert fail it (and retry
        // it) on the unique key rather than overwrite a row this transaction never read.
        created = true;
        pk = insert(record, scopeKey);
      } else {
        pk = existing.pk();
        // A row brought back from deletion counts as created now, for paging marks.
        created = existing.deleted() && !record.deleted();
        update(record, pk, seen);
        deleteIndex(connection, pk);
      }
      writeIndex(pk, scopeKey, record.index());
      indexScope(record.scope());
      // As this transaction has now left it, for a later write of the same record in it.
      read.put(record.scope().qualify(record.id()), Optional.of(asWritten(record, pk)));
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

  /** A record's row as a write finds it: its key, and whether it is marked deleted. */
  private record RowState(long pk, boolean deleted) {}

  /**
   * The row that {@code record} replaces, or null when there is none. {@code seen} is the record as
   * this transaction read or wrote it (absent: known to have no row), or null when it did neither.
   */
  private RowState existingRow(StoredRecord record, String scopeKey, Optional<StoredRecord> seen)
      throws SQLException {
    if (seen != null && seen.isPresent() && dialect.rowsStayAsRead()) {
      // Locked since it was read: it is still as read.
      return new RowState(seen.get().rowKey(), seen.get().deleted());
    }
    if (seen != null && seen.isEmpty()) {
      return null;
    }
    RowState found = null;
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT pk, deleted FROM records WHERE scope_key = ? AND id = ?"
                + (dialect.rowsStayAsRead() ? " FOR UPDATE" : ""))) {
      ps.setString(1, scopeKey);
      ps.setString(2, record.id());
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          found = new RowState(rs.getLong(1), rs.getBoolean(2));
        }
      }
    }
    if (found == null && seen != null) {
      throw concurrentChange();
    }
    return found;
  }

  /** Writes {@code record} over the row {@code pk}, which this transaction has {@code seen}. */
  private void update(StoredRecord record, long pk, Optional<StoredRecord> seen)
      throws SQLException {
    // Where a row read is not locked, check on top of the update's own row lock that it is still
    // as this transaction read it, otherwise the whole unit of work is retried.
    StoredRecord before = seen == null || dialect.rowsStayAsRead() ? null : seen.get();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "UPDATE records SET type = ?, version = ?, created_us = ?, updated_us = ?,"
                + " deleted = ?, doc = ? WHERE pk = ?"
                + (before == null ? "" : " AND version = ? AND deleted = ? AND updated_us = ?"))) {
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
  }

  /** {@code record} as its row {@code pk} now is, for a later write of it in this transaction. */
  private static StoredRecord asWritten(StoredRecord record, long pk) {
    return new StoredRecord(
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
        0);
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
        connection.prepareStatement(SqlRows.ROW_COLUMNS + " WHERE " + condition + " ORDER BY pk")) {
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
  public boolean rewriteVersion(Scope scope, String id, long seq, String document) {
    dialect.beforeWrite();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "UPDATE record_versions SET doc = ? WHERE scope_key = ? AND id = ? AND seq = ?")) {
      ps.setString(1, document);
      ps.setString(2, scope.canonical());
      ps.setString(3, id);
      ps.setLong(4, seq);
      return ps.executeUpdate() > 0;
    } catch (SQLException e) {
      throw new SqlFailure(e);
    }
  }

  @Override
  public boolean rewriteHiddenRow(Scope scope, String id, long version, String document) {
    dialect.beforeWrite();
    try (PreparedStatement ps =
        connection.prepareStatement(
            "UPDATE records SET doc = ?"
                + " WHERE scope_key = ? AND id = ? AND deleted = TRUE AND version = ?")) {
      ps.setString(1, document);
      ps.setString(2, scope.canonical());
      ps.setString(3, id);
      ps.setLong(4, version);
      boolean rewritten = ps.executeUpdate() > 0;
      read.remove(scope.qualify(id));
      return rewritten;
    } catch (SQLException e) {
      throw new SqlFailure(e);
    }
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

  private static SQLException concurrentChange() {
    return new SQLException("the row changed since this transaction read it", CONCURRENT_CHANGE);
  }

  /** The time the change log gives a removal of {@code row}: when it happened. */
  private static long removalMicros(StoredRecord row) {
    // A removal has no record time of its own.
    return Math.max(row.updatedMicros(), Timestamps.toMicros(Instant.now()));
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
}
