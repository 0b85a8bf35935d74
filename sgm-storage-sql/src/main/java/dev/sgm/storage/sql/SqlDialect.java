package dev.sgm.storage.sql;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.TokenStore;
import dev.sgm.api.spi.VersionEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * What one database does differently under a {@link SqlStorage}: how it lends connections, the SQL
 * it speaks where H2 and PostgreSQL differ, whether a row read for update stays locked, which
 * failures are conflicts to retry, how it hands out the write sequence in commit order, and the
 * parts of the store that it keeps its own way (identity, the change log's reading and retention,
 * tokens, health, closing). The defaults are what a database needs nothing special for.
 */
public interface SqlDialect extends SqlSequencer.Allocation {

  // ---- connections ----------------------------------------------------------------------------

  /** A connection to use and give back. */
  SqlLease lease() throws SQLException;

  // ---- statements -----------------------------------------------------------------------------

  /**
   * An insert into {@code table} of a row that may be there already with the same {@code key}
   * columns, in which case the row stays as it is (its other columns are the same).
   */
  String insertOrKeep(String table, String columns, String key);

  /**
   * An insert into {@code table} of a row that should be new: a duplicate key either fails the
   * statement (by default, and on H2, where the transaction goes on after a failed statement) or
   * inserts nothing (PostgreSQL, where a failed statement would end the transaction). Callers
   * handle both.
   */
  default String insertNew(String table, String columns) {
    return insertInto(table, columns);
  }

  /** Binds the row keys {@code keys} as the array parameter {@code index} of {@code ps}. */
  default void bindRowKeys(Connection connection, PreparedStatement ps, int index, Long[] keys)
      throws SQLException {
    ps.setObject(index, keys);
  }

  /**
   * The latest entry of each record in the version log that meets {@code condition} (with {@code
   * params}). This reads every entry and keeps the newest of each record; a database that can pick
   * them in the query does so instead.
   */
  default List<VersionEntry> latestVersions(
      Connection connection, String condition, List<Object> params) throws SQLException {
    try (PreparedStatement ps =
        connection.prepareStatement(
            SqlRows.VERSION_COLUMNS
                + " WHERE "
                + condition
                + " ORDER BY scope_key, id, seq DESC")) {
      SqlRows.bindAll(ps, params);
      List<VersionEntry> latest = new ArrayList<>();
      VersionEntry previous = null;
      for (VersionEntry entry : SqlRows.readVersions(ps)) {
        // Newest first within each record: keep the first entry of each.
        if (previous == null
            || !previous.id().equals(entry.id())
            || !previous.scope().equals(entry.scope())) {
          latest.add(entry);
        }
        previous = entry;
      }
      return latest;
    }
  }

  // ---- locking and turns ----------------------------------------------------------------------

  /**
   * Whether a row read {@code FOR UPDATE} stays as it was read until the transaction ends, so that
   * a write may trust it (PostgreSQL). When not (H2), a write checks that the row is still as read,
   * and the work is retried when it is not.
   */
  boolean rowsStayAsRead();

  /**
   * Runs on a unit of work's thread before each of its writes (a read for update is one): where a
   * store makes writing units take turns, from the first write to {@link #afterCommit}. Nothing by
   * default.
   */
  default void beforeWrite() {}

  /**
   * Runs after every commit, before it is acknowledged: where a store makes the commit as durable
   * as it promises. Nothing by default.
   */
  default void afterCommit() {}

  /**
   * Runs when a unit of work run by {@link SqlStorage#inTransaction} ends, however it ended: where
   * a unit that failed, or wrote nothing, gives up what {@link #beforeWrite} took. Nothing by
   * default.
   */
  default void afterWork() {}

  // ---- failures -------------------------------------------------------------------------------

  /** Conflicts between concurrent transactions, which a retry resolves. */
  boolean retryable(SQLException e);

  /** Whether {@code e} is an insert refused on a unique key. */
  boolean uniqueViolation(SQLException e);

  /**
   * Whether {@code e} is the database being out of reach rather than a fault: a failed rollback
   * then is expected, and is not worth a warning.
   */
  default boolean unreachable(SQLException e) {
    return false;
  }

  /** Nothing of the SQL reaches a client; the details go to the log. */
  default SgmException storageError(SQLException e) {
    // Under the dialect's name, so that the log says which store failed.
    System.getLogger(getClass().getName()).log(System.Logger.Level.ERROR, "storage failure", e);
    return new SgmException(ErrorCode.INTERNAL, "the storage failed; see the server log");
  }

  // ---- the write sequence ---------------------------------------------------------------------

  /**
   * The sequence number that a query without a mark of its own sees: everything at or below it has
   * committed.
   */
  long queryMark(Connection connection) throws SQLException;

  /** The highest committed sequence number, as a transaction running on {@code connection} sees. */
  long currentSequence(Connection connection) throws SQLException;

  /** {@link dev.sgm.api.spi.Storage#committedSequence()}. */
  long committedSequence();

  /**
   * A query that reads the committed sequence in the database (one row, one column), or null where
   * the sequence is not kept there: with it, {@link SqlStorage#liveAndCommitted} reads the rows and
   * the sequence in one statement.
   */
  default String committedSequenceQuery() {
    return null;
  }

  /** {@link dev.sgm.api.spi.Storage#changesAfter}: the change log up to the committed sequence. */
  ChangeBatch changesAfter(long after, int limit);

  /** {@link dev.sgm.api.spi.Storage#changesRetainedAfter()}. */
  long changesRetainedAfter();

  /**
   * {@link dev.sgm.api.spi.Storage#pruneChangesBefore}, in units of work of {@code storage}, the
   * store this dialect serves (their connection: {@link SqlStorage#connection}).
   */
  long pruneChangesBefore(SqlStorage storage, long micros);

  // ---- the store ------------------------------------------------------------------------------

  /** {@link dev.sgm.api.spi.Storage#identity()}. */
  String identity();

  /** {@link dev.sgm.api.spi.Storage#describe()}. */
  String describe();

  /** {@link dev.sgm.api.spi.Storage#tokens()}. */
  Optional<TokenStore> tokens();

  /** {@link dev.sgm.api.spi.Storage#checkAvailable()}; nothing by default. */
  default void checkAvailable() {}

  /** Closes the database's connections: the store is closed. */
  void close();

  // ---- for dialects ---------------------------------------------------------------------------

  /** A plain insert of one row into {@code columns} of {@code table}, every value a parameter. */
  static String insertInto(String table, String columns) {
    return "INSERT INTO " + table + "(" + columns + ") VALUES (" + placeholders(columns) + ")";
  }

  /** The {@code ?} placeholders that {@code columns}, separated by commas, need. */
  static String placeholders(String columns) {
    return String.join(", ", Collections.nCopies(columns.split(",").length, "?"));
  }
}
