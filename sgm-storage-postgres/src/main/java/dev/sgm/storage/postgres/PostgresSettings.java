package dev.sgm.storage.postgres;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Properties;

/**
 * The connection settings of the PostgreSQL store, read from configuration and checked before
 * anything starts: a bad URL, an unreachable server, a wrong password or a missing database each
 * stop start-up with a message that says which.
 *
 * @param url a JDBC URL, {@code jdbc:postgresql://HOST:PORT/DATABASE}
 * @param user the role to connect as
 * @param password its password (never logged or described)
 * @param poolSize the most connections this node holds
 * @param connectTimeoutSeconds how long a connection attempt may take before the database counts as
 *     unavailable
 */
record PostgresSettings(
    String url, String user, String password, int poolSize, int connectTimeoutSeconds) {
  static final String URL = "storage.postgres.url";
  static final String USER = "storage.postgres.user";
  static final String PASSWORD = "storage.postgres.password";
  static final String POOL_SIZE = "storage.postgres.pool-size";
  static final String CONNECT_TIMEOUT = "storage.postgres.connect-timeout-seconds";

  static PostgresSettings from(Config config) {
    String url =
        config
            .get(URL)
            .orElseThrow(
                () ->
                    invalid(
                        URL
                            + ": is required with storage=postgres"
                            + " (jdbc:postgresql://HOST:PORT/DATABASE)"));
    if (!url.startsWith("jdbc:postgresql://")) {
      throw invalid(
          URL
              + ": '"
              + url
              + "' is not a PostgreSQL JDBC URL (jdbc:postgresql://HOST:PORT/DATABASE)");
    }
    try {
      URI uri = URI.create(url.substring("jdbc:".length()));
      if (uri.getHost() == null || uri.getPath() == null || uri.getPath().length() < 2) {
        throw new IllegalArgumentException("no host or database");
      }
    } catch (IllegalArgumentException e) {
      throw invalid(
          URL
              + ": '"
              + url
              + "' is not a PostgreSQL JDBC URL (jdbc:postgresql://HOST:PORT/DATABASE): "
              + e.getMessage());
    }
    int pool = config.getInt(POOL_SIZE, 16);
    if (pool < 1) {
      throw invalid(POOL_SIZE + ": must be at least 1");
    }
    int timeout = config.getInt(CONNECT_TIMEOUT, 5);
    if (timeout < 1) {
      throw invalid(CONNECT_TIMEOUT + ": must be at least 1");
    }
    return new PostgresSettings(
        url, config.get(USER, "sgm"), config.get(PASSWORD, ""), pool, timeout);
  }

  /** The server and database the URL names, for messages (no credentials). */
  String where() {
    URI uri = URI.create(url.substring("jdbc:".length()));
    int port = uri.getPort() < 0 ? 5432 : uri.getPort();
    return uri.getHost() + ":" + port + uri.getPath();
  }

  String database() {
    return URI.create(url.substring("jdbc:".length())).getPath().substring(1);
  }

  Properties driverProperties() {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    properties.setProperty("connectTimeout", Integer.toString(connectTimeoutSeconds));
    properties.setProperty("loginTimeout", Integer.toString(connectTimeoutSeconds));
    properties.setProperty("ApplicationName", "sgm");
    return properties;
  }

  /**
   * Connects once, directly, to tell the operator exactly what is wrong before a pool would hide it
   * behind retries.
   */
  void check() {
    try (Connection connection = new org.postgresql.Driver().connect(url, driverProperties())) {
      if (connection == null) {
        throw invalid(URL + ": '" + url + "' is not accepted by the PostgreSQL driver");
      }
      connection.isValid(connectTimeoutSeconds);
    } catch (SQLException e) {
      throw explain(e);
    }
  }

  /** What a failed connection means, in the operator's words. */
  SgmException explain(SQLException e) {
    String state = e.getSQLState() == null ? "" : e.getSQLState();
    return switch (state) {
      case "28P01", "28000" ->
          new SgmException(
              ErrorCode.UNAVAILABLE,
              "PostgreSQL at "
                  + where()
                  + " refused the login of role '"
                  + user
                  + "': wrong password or unknown role (set "
                  + USER
                  + " and "
                  + PASSWORD
                  + ")");
      case "3D000" ->
          new SgmException(
              ErrorCode.UNAVAILABLE,
              "PostgreSQL at "
                  + where()
                  + " has no database '"
                  + database()
                  + "': create it (createdb -O "
                  + user
                  + " "
                  + database()
                  + ") or name another in "
                  + URL);
      default ->
          state.startsWith("08") || state.isEmpty()
              ? new SgmException(
                  ErrorCode.UNAVAILABLE,
                  "PostgreSQL at "
                      + where()
                      + " cannot be reached: "
                      + firstLine(e.getMessage())
                      + " (is the server running, and is "
                      + URL
                      + " right?)")
              : new SgmException(
                  ErrorCode.UNAVAILABLE,
                  "PostgreSQL at "
                      + where()
                      + " refused the connection: "
                      + firstLine(e.getMessage()));
    };
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "no reason given";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  private static SgmException invalid(String message) {
    return new SgmException(ErrorCode.INVALID_REQUEST, "configuration " + message);
  }

  @Override
  public String toString() {
    // Never the password.
    return "postgres " + where() + " as " + user;
  }
}
