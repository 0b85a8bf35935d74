package dev.sgm.storage.h2;

import dev.sgm.storage.sql.SqlLease;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;

/**
 * A small pool of embedded H2 connections. Borrowing is a queue poll, which matters at the rate
 * reads come in: H2's own pool wraps and resets each connection on every use, costing more than an
 * indexed read.
 */
final class H2Connections implements AutoCloseable {
  private final org.h2.Driver driver = new org.h2.Driver();
  private final String url;
  private final Properties credentials = new Properties();
  private final BlockingQueue<Connection> idle;
  private final Map<Connection, Map<String, PreparedStatement>> statements =
      new ConcurrentHashMap<>();
  private final Semaphore permits;
  private volatile boolean closed;

  /**
   * The connection that forces the store to the disk; one sync runs at a time ({@link GroupSync}).
   */
  private Connection syncing;

  H2Connections(String url, int max) {
    this.url = url;
    credentials.setProperty("user", "sgm");
    credentials.setProperty("password", "");
    idle = new ArrayBlockingQueue<>(max);
    permits = new Semaphore(max);
  }

  /** A borrowed connection in auto-commit mode; closing the lease gives it back. */
  final class Lease implements SqlLease {
    private final Connection connection;

    private Lease(Connection connection) {
      this.connection = connection;
    }

    @Override
    public Connection connection() {
      return connection;
    }

    /** Kept with this connection for reuse: the caller must not close it. */
    @Override
    public PreparedStatement cached(String sql) throws SQLException {
      Map<String, PreparedStatement> cache =
          statements.computeIfAbsent(connection, c -> new HashMap<>());
      PreparedStatement statement = cache.get(sql);
      if (statement == null) {
        statement = connection.prepareStatement(sql);
        cache.put(sql, statement);
      }
      return statement;
    }

    @Override
    public void close() {
      release(connection);
    }
  }

  Lease lease() throws SQLException {
    try {
      permits.acquire();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while waiting for a connection", e);
    }
    Connection connection = idle.poll();
    if (connection == null) {
      try {
        connection = driver.connect(url, credentials);
      } catch (SQLException | RuntimeException e) {
        permits.release();
        throw e;
      }
    }
    return new Lease(connection);
  }

  /**
   * Forces everything the store has written to the disk ({@code CHECKPOINT SYNC}, which ends in
   * {@code FileChannel.force}). Called by one thread at a time.
   */
  void sync() throws SQLException {
    if (syncing == null || syncing.isClosed()) {
      syncing = driver.connect(url, credentials);
    }
    try (java.sql.Statement s = syncing.createStatement()) {
      s.execute("CHECKPOINT SYNC");
    }
  }

  private void release(Connection connection) {
    try {
      boolean reusable = !closed && !connection.isClosed();
      if (reusable && !connection.getAutoCommit()) {
        connection.rollback();
        connection.setAutoCommit(true);
      }
      if (!reusable || !idle.offer(connection)) {
        statements.remove(connection);
        connection.close();
      }
    } catch (SQLException e) {
      statements.remove(connection);
      try {
        connection.close();
      } catch (SQLException ignored) {
        // Already broken; nothing more to release.
      }
    } finally {
      permits.release();
    }
  }

  @Override
  public void close() {
    closed = true;
    if (syncing != null) {
      try {
        syncing.close();
      } catch (SQLException ignored) {
        // Closing at shutdown: nothing to do about it.
      }
    }
    for (Connection c = idle.poll(); c != null; c = idle.poll()) {
      statements.remove(c);
      try {
        c.close();
      } catch (SQLException ignored) {
        // Closing at shutdown: nothing to do about it.
      }
    }
  }
}
