package dev.sgm.storage.postgres;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.storage.sql.LoggedWrite;
import dev.sgm.storage.sql.SqlDialect;
import dev.sgm.storage.sql.SqlFailure;
import dev.sgm.storage.sql.SqlLease;
import dev.sgm.storage.sql.SqlRows;
import dev.sgm.storage.sql.SqlSequencer;
import dev.sgm.storage.sql.SqlStorage;
import dev.sgm.storage.sql.SqlTokens;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The PostgreSQL server under a {@link SqlStorage}, which any number of nodes can share. Every unit
 * of work is one transaction at {@code READ COMMITTED}; a row read for update is locked until
 * commit, and a concurrent insert of the same identity fails on the unique key and the work is
 * retried.
 *
 * <p>The write sequence is one counter row ({@code write_sequence}) that a committing transaction
 * updates as its last step and whose lock it holds until it commits. So numbers are handed out in
 * commit order across every node: everything at or below the counter's committed value has
 * committed, a follower reading up to it never sees a lower number appear later, and a transaction
 * that rolls back gives its numbers back (the log has no holes).
 */
final class PostgresDialect implements SqlDialect {
  private static final System.Logger LOG = System.getLogger(PostgresDialect.class.getName());

  private final PostgresSettings settings;
  private final HikariDataSource pool;
  private final String identity;
  private final SqlTokens tokens;

  /**
   * Groups of concurrent stores that may run at once, each sharing one commit: commits take turns
   * on the counter's lock, each with a WAL flush, so a group's flush serves all of its stores while
   * the other group runs its statements.
   */
  static final int COMMIT_GROUPS = 2;

  PostgresDialect(PostgresSettings settings) {
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
      try (Connection c = pool.getConnection()) {
        this.identity = SqlStorage.readIdentity(c);
      }
      this.tokens = new SqlTokens(this::lease, this::lease, this::storageError, () -> {});
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

  /** The committed value of the write-sequence counter (see {@link #numberAndLog}). */
  private static final String LAST_NUMBER = "SELECT last FROM write_sequence";

  @Override
  public String committedSequenceQuery() {
    return LAST_NUMBER;
  }

  private static long lastNumber(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(LAST_NUMBER)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Override
  public String describe() {
    return "postgres " + settings.where();
  }

  @Override
  public SqlLease lease() throws SQLException {
    return SqlLease.of(pool.getConnection());
  }

  /**
   * Takes the numbers from the shared counter and writes every log in one statement. The counter
   * row's lock is held until the transaction ends, so the next taker commits after this one, and
   * the counter's committed value is what followers read (the commit itself settles the numbers).
   * Every node's committers queue for that lock, so each round trip made while it is held (one for
   * the numbers and one per log, before) delays them all. A record written twice in one commit gets
   * the later write's number, as written in turn.
   */
  private static final String NUMBER_AND_LOG =
      "WITH n AS (UPDATE write_sequence SET last = last + ? RETURNING last - ? + 1 AS first),"
          + " w AS (SELECT t.*, t.ord - 1 AS k FROM unnest(?::bigint[], ?::boolean[], ?::text[],"
          + " ?::text[], ?::text[], ?::text[], ?::bigint[], ?::text[], ?::bigint[], ?::boolean[],"
          + " ?::boolean[], ?::text[]) WITH ORDINALITY AS t(pk, created, scope_key, id, kind, type,"
          + " version, agent, at_us, keep, deleted, doc, ord)),"
          + " r AS (UPDATE records SET seq = n.first + l.last_k, created_seq = CASE WHEN"
          + " l.created_k IS NULL THEN records.created_seq ELSE n.first + l.created_k END"
          + " FROM n, (SELECT pk, max(k) AS last_k, max(k) FILTER (WHERE created) AS created_k"
          + " FROM w WHERE pk IS NOT NULL GROUP BY pk) l WHERE records.pk = l.pk),"
          + " c AS (INSERT INTO changes(seq, scope_key, id, kind, type, version, agent, at_us)"
          + " SELECT n.first + w.k, w.scope_key, w.id, w.kind, w.type, w.version, w.agent,"
          + " w.at_us FROM n, w),"
          + " v AS (INSERT INTO record_versions(scope_key, id, seq, version, written_us, writer,"
          + " deleted, doc) SELECT w.scope_key, w.id, n.first + w.k, w.version, w.at_us, w.agent,"
          + " w.deleted, w.doc FROM n, w WHERE w.keep)"
          + " SELECT first FROM n";

  @Override
  public SqlSequencer.Numbers numberAndLog(Connection connection, List<LoggedWrite> writes)
      throws SQLException {
    int count = writes.size();
    Long[] pk = new Long[count];
    Boolean[] created = new Boolean[count];
    String[] scope = new String[count];
    String[] id = new String[count];
    String[] kind = new String[count];
    String[] type = new String[count];
    Long[] version = new Long[count];
    String[] agent = new String[count];
    Long[] at = new Long[count];
    Boolean[] keep = new Boolean[count];
    Boolean[] deleted = new Boolean[count];
    String[] doc = new String[count];
    for (int i = 0; i < count; i++) {
      LoggedWrite write = writes.get(i);
      pk[i] = write.pk();
      created[i] = write.created();
      scope[i] = write.scope().canonical();
      id[i] = write.id();
      kind[i] = write.log().kind().wireName();
      type[i] = write.type();
      version[i] = write.version();
      agent[i] = write.log().writer();
      at[i] = write.micros();
      keep[i] = write.log().keepVersion();
      deleted[i] = write.deleted();
      doc[i] = write.log().keepVersion() ? write.document() : null;
    }
    try (PreparedStatement ps = connection.prepareStatement(NUMBER_AND_LOG)) {
      ps.setInt(1, count);
      ps.setInt(2, count);
      int p = 3;
      ps.setArray(p++, connection.createArrayOf("bigint", pk));
      ps.setArray(p++, connection.createArrayOf("boolean", created));
      ps.setArray(p++, connection.createArrayOf("text", scope));
      ps.setArray(p++, connection.createArrayOf("text", id));
      ps.setArray(p++, connection.createArrayOf("text", kind));
      ps.setArray(p++, connection.createArrayOf("text", type));
      ps.setArray(p++, connection.createArrayOf("bigint", version));
      ps.setArray(p++, connection.createArrayOf("text", agent));
      ps.setArray(p++, connection.createArrayOf("bigint", at));
      ps.setArray(p++, connection.createArrayOf("boolean", keep));
      ps.setArray(p++, connection.createArrayOf("boolean", deleted));
      ps.setArray(p, connection.createArrayOf("text", doc));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return SqlSequencer.settledNumbers(rs.getLong(1));
      }
    }
  }

  @Override
  public long queryMark(Connection connection) throws SQLException {
    return lastNumber(connection);
  }

  @Override
  public long currentSequence(Connection connection) throws SQLException {
    return lastNumber(connection);
  }

  @Override
  public boolean retryable(SQLException e) {
    String state = String.valueOf(e.getSQLState());
    return state.equals("40001") // serialization_failure
        || state.equals("40P01") // deadlock_detected
        || state.equals("23505") // unique_violation: a concurrent insert of the same identity
        || state.equals("55P03"); // lock_not_available
  }

  @Override
  public boolean uniqueViolation(SQLException e) {
    return "23505".equals(e.getSQLState());
  }

  /** Yes: at {@code READ COMMITTED} a row read {@code FOR UPDATE} is locked until commit. */
  @Override
  public boolean rowsStayAsRead() {
    return true;
  }

  @Override
  public String insertOrKeep(String table, String columns, String key) {
    return SqlDialect.insertInto(table, columns) + " ON CONFLICT (" + key + ") DO NOTHING";
  }

  /** A duplicate inserts nothing: a failed statement would end the whole transaction. */
  @Override
  public String insertNew(String table, String columns) {
    return SqlDialect.insertInto(table, columns) + " ON CONFLICT DO NOTHING";
  }

  @Override
  public void bindRowKeys(Connection connection, PreparedStatement ps, int index, Long[] keys)
      throws SQLException {
    ps.setArray(index, connection.createArrayOf("bigint", keys));
  }

  /** Picks the latest entry of each record in the query, rather than reading them all. */
  @Override
  public List<VersionEntry> latestVersions(
      Connection connection, String condition, List<Object> params) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            "SELECT DISTINCT ON (scope_key, id) "
                + SqlRows.VERSION_COLUMN_LIST
                + " FROM record_versions WHERE "
                + condition
                + " ORDER BY scope_key, id, seq DESC")) {
      SqlRows.bindAll(ps, params);
      return SqlRows.readVersions(ps);
    }
  }

  /** Whether the failure is the database being out of reach rather than a fault. */
  @Override
  public boolean unreachable(SQLException e) {
    String state = String.valueOf(e.getSQLState());
    return e instanceof SQLTransientConnectionException
        || state.startsWith("08") // connection_exception
        || state.equals("57P01") // admin_shutdown
        || state.equals("57P02") // crash_shutdown
        || state.equals("57P03") // cannot_connect_now
        || state.equals("53300"); // too_many_connections
  }

  /** Nothing of the SQL reaches a client; the details go to the log. */
  @Override
  public SgmException storageError(SQLException e) {
    if (unreachable(e)) {
      LOG.log(System.Logger.Level.WARNING, "the database is unavailable: " + e.getMessage());
      return new SgmException(
          ErrorCode.UNAVAILABLE,
          "the database " + settings.where() + " is unavailable; try again shortly");
    }
    return SqlDialect.super.storageError(e);
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
                    + " (SELECT "
                    + SqlRows.CHANGE_COLUMNS
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
          changes.add(SqlRows.change(rs, 2));
        }
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
    return SqlRows.batch(changes, after, through, limit);
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
  public long pruneChangesBefore(SqlStorage storage, long micros) {
    return storage.inTransaction(
        tx -> {
          Connection c = SqlStorage.connection(tx);
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
