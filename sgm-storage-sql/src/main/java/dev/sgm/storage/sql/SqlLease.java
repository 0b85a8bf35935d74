package dev.sgm.storage.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * A borrowed connection in auto-commit mode; closing the lease gives it back. Each storage lends
 * its connections its own way (H2 from a small queue of its own, PostgreSQL from HikariCP).
 */
public interface SqlLease extends AutoCloseable {
  /** The borrowed connection. */
  Connection connection();

  /**
   * A prepared statement for one of the hottest queries, which a lease may keep with its connection
   * for reuse. The caller must not close it; the lease does what its pool needs.
   */
  PreparedStatement cached(String sql) throws SQLException;

  @Override
  void close() throws SQLException;

  /** Where leases come from. */
  @FunctionalInterface
  interface Source {
    /** A connection to use and give back. */
    SqlLease lease() throws SQLException;
  }

  /**
   * A lease over a connection from a pool that keeps no statements of its own: what {@link #cached}
   * prepares is kept for the lease (one statement per query however often it is asked for) and
   * closed with it, and closing it gives the connection back.
   */
  static SqlLease of(Connection connection) {
    return new SqlLease() {
      private final Map<String, PreparedStatement> prepared = new HashMap<>();

      @Override
      public Connection connection() {
        return connection;
      }

      @Override
      public PreparedStatement cached(String sql) throws SQLException {
        PreparedStatement statement = prepared.get(sql);
        if (statement == null) {
          statement = connection.prepareStatement(sql);
          prepared.put(sql, statement);
        }
        return statement;
      }

      @Override
      public void close() throws SQLException {
        try {
          for (PreparedStatement statement : prepared.values()) {
            statement.close();
          }
        } finally {
          connection.close();
        }
      }
    };
  }
}
