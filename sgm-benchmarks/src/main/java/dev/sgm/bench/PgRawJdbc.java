package dev.sgm.bench;

import dev.sgm.api.Json;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What a store of a new record writes on PostgreSQL, with plain JDBC: in one transaction, the
 * identity lookup with its row lock, the record row, its tag, the write-sequence counter, the row's
 * sequence numbers, the change-log entry and the version-log entry (history is on in the identity
 * benchmark's engine). A read is the lookup by (scope, id). The floor {@link PostgresBenchmark}
 * holds the engine to.
 */
final class PgRawJdbc implements AutoCloseable {
  private final int projects;
  private final int perProject;
  private final List<Connection> opened = new ArrayList<>();
  private final ThreadLocal<Connection> connection;

  /**
   * Rows in {@code url}'s database, whose schema the storage has migrated; a connection a thread.
   */
  PgRawJdbc(String url, String user, String password, int projects, int perProject) {
    this.projects = projects;
    this.perProject = perProject;
    this.connection =
        ThreadLocal.withInitial(
            () -> {
              try {
                Connection c = DriverManager.getConnection(url, user, password);
                synchronized (opened) {
                  opened.add(c);
                }
                return c;
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            });
  }

  /** Records {@code r0..} in projects {@code p0..}, as the engine's side is preloaded. */
  void preload() throws SQLException {
    Connection c = connection.get();
    c.setAutoCommit(false);
    for (int p = 0; p < projects; p++) {
      for (int i = 0; i < perProject; i++) {
        insert(c, "project=p" + p, "r" + i);
      }
      c.commit();
    }
    c.setAutoCommit(true);
  }

  void store(long n) {
    try {
      Connection c = connection.get();
      c.setAutoCommit(false);
      insert(c, "project=load", "raw-" + n);
      c.commit();
      c.setAutoCommit(true);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  private static void insert(Connection c, String scopeKey, String id) throws SQLException {
    long now = System.currentTimeMillis() * 1000;
    String doc =
        "{\"id\":\""
            + id
            + "\",\"type\":\"note\",\"scope\":{\"project\":\"load\"},"
            + "\"content\":\"a record written under load\",\"tags\":[\"bench\"],"
            + "\"provenance\":{\"agent\":\"bench\",\"created_at\":\"2026-01-01T00:00:00Z\","
            + "\"origin\":\"embedded\"},\"created_at\":\"2026-01-01T00:00:00Z\","
            + "\"schema_version\":\"0.1.0\",\"version\":1,\"updated_at\":\"2026-01-01T00:00:00Z\"}";
    lockIdentity(c, scopeKey, id);
    long pk = insertRecord(c, scopeKey, id, now, doc);
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO record_tags(scope_key, tag, pk) VALUES (?, 'bench', ?)"
                + " ON CONFLICT DO NOTHING")) {
      ps.setString(1, scopeKey);
      ps.setLong(2, pk);
      ps.executeUpdate();
    }
    long seq = nextSequence(c, pk);
    logChange(c, scopeKey, id, seq, now);
    logVersion(c, scopeKey, id, seq, now, doc);
  }

  /** The engine's lookup of the identity before a write, which locks the row if there is one. */
  private static void lockIdentity(Connection c, String scopeKey, String id) throws SQLException {
    try (PreparedStatement find =
        c.prepareStatement(
            "SELECT type, version, created_us, updated_us, deleted, doc, pk, created_seq FROM"
                + " records WHERE scope_key = ? AND id = ? FOR UPDATE")) {
      find.setString(1, scopeKey);
      find.setString(2, id);
      try (ResultSet rs = find.executeQuery()) {
        rs.next();
      }
    }
  }

  /** Inserts the record row; its key. */
  private static long insertRecord(Connection c, String scopeKey, String id, long now, String doc)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO records(scope_key, id, type, version, created_us, updated_us,"
                + " created_seq, seq, deleted, doc) VALUES (?, ?, 'note', 1, ?, ?, 0, 0, FALSE,"
                + " ?) RETURNING pk")) {
      ps.setString(1, scopeKey);
      ps.setString(2, id);
      ps.setLong(3, now);
      ps.setLong(4, now);
      ps.setString(5, doc);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  /** Takes the next write sequence number and gives it to row {@code pk}; the number. */
  private static long nextSequence(Connection c, long pk) throws SQLException {
    long seq;
    try (PreparedStatement ps =
            c.prepareStatement("UPDATE write_sequence SET last = last + 1 RETURNING last");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      seq = rs.getLong(1);
    }
    try (PreparedStatement ps =
        c.prepareStatement("UPDATE records SET seq = ?, created_seq = ? WHERE pk = ?")) {
      ps.setLong(1, seq);
      ps.setLong(2, seq);
      ps.setLong(3, pk);
      ps.executeUpdate();
    }
    return seq;
  }

  private static void logChange(Connection c, String scopeKey, String id, long seq, long now)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO changes(seq, scope_key, id, kind, type, version, agent, at_us)"
                + " VALUES (?, ?, ?, 'stored', 'note', 1, 'bench', ?)")) {
      ps.setLong(1, seq);
      ps.setString(2, scopeKey);
      ps.setString(3, id);
      ps.setLong(4, now);
      ps.executeUpdate();
    }
  }

  private static void logVersion(
      Connection c, String scopeKey, String id, long seq, long now, String doc)
      throws SQLException {
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO record_versions(scope_key, id, seq, version, written_us, writer,"
                + " deleted, doc) VALUES (?, ?, ?, 1, ?, 'bench', FALSE, ?)")) {
      ps.setString(1, scopeKey);
      ps.setString(2, id);
      ps.setLong(3, seq);
      ps.setLong(4, now);
      ps.setString(5, doc);
      ps.executeUpdate();
    }
  }

  /** A preloaded record at random, looked up by identity and its document parsed. */
  void read(long n) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    try (PreparedStatement ps =
        connection
            .get()
            .prepareStatement(
                "SELECT type, version, created_us, updated_us, deleted, doc, pk, created_seq"
                    + " FROM records WHERE scope_key = ? AND id = ?")) {
      ps.setString(1, "project=p" + random.nextInt(projects));
      ps.setString(2, "r" + random.nextInt(perProject));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new IllegalStateException("a preloaded row is missing");
        }
        Json.parse(rs.getString(6));
      }
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    synchronized (opened) {
      for (Connection c : opened) {
        try {
          c.close();
        } catch (SQLException ignored) {
          // At the end of the run: nothing to do.
        }
      }
    }
  }
}
