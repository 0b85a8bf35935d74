package dev.sgm.core;

import dev.sgm.api.ContentReference;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageQuery.Position;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * The embedded H2 store. Every unit of work is one JDBC transaction; commits are written through
 * before they return ({@code WRITE_DELAY=0}), so an acknowledged store survives the process being
 * killed. Scopes are indexed by their pairs, so descendants are found without scanning records.
 */
final class H2Storage implements Storage {
  private static final System.Logger LOG = System.getLogger(H2Storage.class.getName());
  private static final int MAX_ATTEMPTS = 20;

  /** Settings of every connection: wait up to 10 s for a row lock held by another writer. */
  static final String SESSION_SETTINGS = "LOCK_TIMEOUT=10000";

  private final H2Connections connections;
  private final String description;
  private final AtomicLong sequence;
  private final Set<String> indexedScopes = ConcurrentHashMap.newKeySet();

  H2Storage(String url, String description) {
    this.description = description;
    this.connections = new H2Connections(url, 32);
    try {
      try (H2Connections.Lease lease = connections.lease()) {
        H2Schema.migrate(lease.connection());
      }
      this.sequence = new AtomicLong(currentSequence());
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

  private long currentSequence() throws SQLException {
    try (H2Connections.Lease lease = connections.lease();
        Statement s = lease.connection().createStatement();
        ResultSet rs = s.executeQuery("SELECT COALESCE(MAX(seq), 0) FROM records")) {
      rs.next();
      return rs.getLong(1);
    }
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
        try {
          T result = work.apply(tx);
          connection.commit();
          connection.setAutoCommit(true);
          indexedScopes.addAll(tx.newScopes);
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
        }
      } catch (SQLException e) {
        throw storageError(e);
      }
      backOff(attempt);
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
    public long put(StoredRecord record) {
      try {
        long seq = sequence.incrementAndGet();
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
        if (pk == null) {
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "INSERT INTO records(scope_key, id, type, version, created_us, updated_us,"
                      + " created_seq, seq, deleted, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                  Statement.RETURN_GENERATED_KEYS)) {
            ps.setString(1, scopeKey);
            ps.setString(2, record.id());
            bindRow(ps, 3, record);
            ps.setLong(7, seq);
            ps.setLong(8, seq);
            ps.setBoolean(9, record.deleted());
            ps.setString(10, record.document());
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
              keys.next();
              pk = keys.getLong(1);
            }
          }
        } else {
          // Optimistic check on top of the row lock: the row must still be as this transaction read
          // it, otherwise the whole unit of work is retried against the new state.
          StoredRecord before = seen == null ? null : seen.get();
          try (PreparedStatement ps =
              connection.prepareStatement(
                  "UPDATE records SET type = ?, version = ?, created_us = ?, updated_us = ?,"
                      + " created_seq = CASE WHEN ? THEN ? ELSE created_seq END, seq = ?,"
                      + " deleted = ?, doc = ? WHERE pk = ?"
                      + (seen == null
                          ? ""
                          : " AND version = ? AND deleted = ? AND updated_us = ?"))) {
            bindRow(ps, 1, record);
            // A row brought back from deletion counts as created now, for paging marks.
            ps.setBoolean(5, wasDeleted && !record.deleted());
            ps.setLong(6, seq);
            ps.setLong(7, seq);
            ps.setBoolean(8, record.deleted());
            ps.setString(9, record.document());
            ps.setLong(10, pk);
            if (before != null) {
              ps.setLong(11, before.version());
              ps.setBoolean(12, before.deleted());
              ps.setLong(13, before.updatedMicros());
            }
            if (ps.executeUpdate() == 0) {
              throw concurrentChange();
            }
          }
          deleteIndex(connection, pk);
        }
        writeIndex(pk, scopeKey, record.index());
        indexScope(record.scope());
        return seq;
      } catch (SQLException e) {
        throw new SqlFailure(e);
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
          connection.prepareStatement(
              "SELECT scope_key, id, type, version, created_us, updated_us, deleted, doc FROM records"
                  + " WHERE "
                  + condition
                  + " ORDER BY pk")) {
        bindAll(ps, params);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rows.add(
                new StoredRecord(
                    Scope.parseCanonical(rs.getString(1)),
                    rs.getString(2),
                    rs.getString(3),
                    rs.getLong(4),
                    rs.getLong(5),
                    rs.getLong(6),
                    rs.getBoolean(7),
                    rs.getString(8),
                    NOT_LOADED));
          }
        }
        return rows;
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }

    @Override
    public void appendVersion(VersionEntry entry) {
      try (PreparedStatement ps =
          connection.prepareStatement(
              "INSERT INTO record_versions(scope_key, id, seq, version, written_us, writer, deleted, doc)"
                  + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
        ps.setString(1, entry.scope().canonical());
        ps.setString(2, entry.id());
        ps.setLong(3, entry.seq());
        ps.setLong(4, entry.version());
        ps.setLong(5, entry.writtenMicros());
        ps.setString(6, entry.writer());
        ps.setBoolean(7, entry.deleted());
        ps.setString(8, entry.document());
        ps.executeUpdate();
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
      return sequence.get();
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
      if (!index.terms().isEmpty()) {
        try (PreparedStatement ps =
            connection.prepareStatement(
                "INSERT INTO record_terms(scope_key, term, pk, weight) VALUES (?, ?, ?, ?)")) {
          for (Map.Entry<String, Integer> term : index.terms().entrySet()) {
            ps.setString(1, scopeKey);
            ps.setString(2, term.getKey());
            ps.setLong(3, pk);
            ps.setInt(4, term.getValue());
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
    public void remove(Scope scope, String id) {
      try {
        Optional<Long> pk = Optional.empty();
        try (PreparedStatement ps =
            connection.prepareStatement("SELECT pk FROM records WHERE scope_key = ? AND id = ?")) {
          ps.setString(1, scope.canonical());
          ps.setString(2, id);
          try (ResultSet rs = ps.executeQuery()) {
            if (rs.next()) {
              pk = Optional.of(rs.getLong(1));
            }
          }
        }
        if (pk.isPresent()) {
          deleteIndex(connection, pk.get());
          try (PreparedStatement ps =
              connection.prepareStatement("DELETE FROM records WHERE pk = ?")) {
            ps.setLong(1, pk.get());
            ps.executeUpdate();
          }
        }
      } catch (SQLException e) {
        throw new SqlFailure(e);
      }
    }
  }

  private static void deleteIndex(Connection connection, long pk) throws SQLException {
    for (String table : List.of("record_tags", "record_terms", "record_fields")) {
      try (PreparedStatement ps =
          connection.prepareStatement("DELETE FROM " + table + " WHERE pk = ?")) {
        ps.setLong(1, pk);
        ps.executeUpdate();
      }
    }
  }

  private static final String FIND =
      "SELECT type, version, created_us, updated_us, deleted, doc FROM records"
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

  private static final RecordIndex NOT_LOADED = new RecordIndex(List.of(), Map.of(), List.of());

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
              NOT_LOADED));
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
    long mark = query.mark() >= 0 ? query.mark() : sequence.get();
    H2Query sql = H2Query.build(query, mark);
    try (H2Connections.Lease lease = connections.lease()) {
      return sql.isText()
          ? textPage(lease.connection(), sql, query, mark)
          : page(lease.connection(), sql, mark);
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

  private static StoragePage textPage(
      Connection connection, H2Query sql, StorageQuery query, long mark) throws SQLException {
    Map<Long, Long> scores = new HashMap<>();
    try (PreparedStatement ps = connection.prepareStatement(sql.matchesSql())) {
      sql.bindMatches(ps);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          scores.put(rs.getLong(1), rs.getLong(2));
        }
      }
    }
    if (scores.isEmpty()) {
      return new StoragePage(List.of(), 0, mark);
    }
    List<Position> passing = new ArrayList<>();
    try (PreparedStatement ps = connection.prepareStatement(sql.passingSql())) {
      sql.bindPassing(ps, scores.keySet().toArray(Long[]::new));
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          long pk = rs.getLong(1);
          passing.add(new Position(scores.get(pk), pk));
        }
      }
    }
    Comparator<Position> order =
        Comparator.comparingLong(Position::sortValue).thenComparingLong(Position::rowKey);
    if (!query.ascending()) {
      order = order.reversed();
    }
    passing.sort(order);
    Position after = query.after();
    List<Position> page = new ArrayList<>(query.limit());
    for (Position p : passing) {
      if (page.size() == query.limit()) {
        break;
      }
      if (after == null || order.compare(p, after) > 0) {
        page.add(p);
      }
    }
    Map<Long, String> documents = new HashMap<>();
    if (!page.isEmpty()) {
      try (PreparedStatement ps = connection.prepareStatement(H2Query.documentsSql())) {
        ps.setObject(1, page.stream().map(Position::rowKey).toArray(Long[]::new));
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            documents.put(rs.getLong(1), rs.getString(2));
          }
        }
      }
    }
    List<StoragePage.Row> rows = new ArrayList<>(page.size());
    for (Position p : page) {
      String document = documents.get(p.rowKey());
      if (document != null) {
        rows.add(new StoragePage.Row(document, p));
      }
    }
    return new StoragePage(rows, passing.size(), mark);
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
