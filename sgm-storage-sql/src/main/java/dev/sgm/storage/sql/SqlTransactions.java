package dev.sgm.storage.sql;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.StorageTransaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * Runs the units of work of a {@link SqlStorage}: each in one JDBC transaction, retried when it
 * conflicts with a concurrent one, its writes numbered as it commits ({@link SqlSequencer}), and
 * every commit made as durable as the dialect promises before the commit listeners hear of it.
 * Concurrent short units may be gathered to share a commit ({@link CommitGroups}).
 */
final class SqlTransactions {
  private static final int MAX_ATTEMPTS = 20;

  /** The most units of work that share one commit. */
  private static final int MAX_GROUP = 32;

  private final SqlDialect dialect;
  private final SqlSequencer sequencer;

  /** Under the dialect's name, so that the log says which store failed. */
  private final System.Logger log;

  private final Set<String> indexedScopes = ConcurrentHashMap.newKeySet();
  private final List<Runnable> commitListeners = new CopyOnWriteArrayList<>();

  /** Concurrent short units of work gathered to share a commit, or null when they never do. */
  private final CommitGroups groups;

  /**
   * Units of work on {@code dialect}'s database; {@code commitGroups} groups of short ones may run
   * at once, each sharing one commit (0: each runs alone).
   */
  SqlTransactions(SqlDialect dialect, int commitGroups) {
    this.dialect = dialect;
    this.log = System.getLogger(dialect.getClass().getName());
    this.sequencer = new SqlSequencer(dialect);
    this.groups = commitGroups > 0 ? new CommitGroups(commitGroups, MAX_GROUP) : null;
  }

  /** Runs {@code listener} after each commit that wrote something. */
  void onCommit(Runnable listener) {
    commitListeners.add(listener);
  }

  /**
   * Runs {@code work} as one transaction, again when it conflicts with a concurrent one; when it
   * ends, however it ended, the dialect may give up what the unit took ({@link
   * SqlDialect#afterWork}).
   */
  <T> T inTransaction(Function<StorageTransaction, T> work) {
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
        SqlUnitOfWork tx = new SqlUnitOfWork(dialect, lease, indexedScopes);
        try {
          T result = work.apply(tx);
          List<SqlUnitOfWork> txs = List.of(tx);
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
  <T> T inShortTransaction(Function<StorageTransaction, T> work) {
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
    List<SqlUnitOfWork> txs = new ArrayList<>(group.size());
    boolean committed = false;
    try (SqlLease lease = dialect.lease()) {
      Connection connection = lease.connection();
      connection.setAutoCommit(false);
      try {
        for (CommitGroups.Unit unit : group) {
          SqlUnitOfWork tx = new SqlUnitOfWork(dialect, lease, indexedScopes);
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

  /**
   * Commits the transaction of {@code txs}: numbers their writes in commit order and writes their
   * logs ({@link SqlSequencer#commit}), then commits, as its last step.
   *
   * @return the numbers the writes got, or null when there were none; the caller hands them to
   *     {@link #publish} (on failure this method has settled them itself)
   */
  private SqlSequencer.Numbers commit(Connection connection, List<SqlUnitOfWork> txs)
      throws SQLException {
    List<LoggedWrite> writes = new ArrayList<>();
    for (SqlUnitOfWork tx : txs) {
      writes.addAll(tx.logged());
    }
    return sequencer.commit(connection, writes);
  }

  /**
   * After {@link #commit}: makes the commit as durable as promised ({@link
   * SqlDialect#afterCommit}), settles its numbers (whatever happens) and tells the commit
   * listeners.
   */
  private void publish(Connection connection, List<SqlUnitOfWork> txs, SqlSequencer.Numbers numbers)
      throws SQLException {
    try {
      connection.setAutoCommit(true);
      dialect.afterCommit();
      for (SqlUnitOfWork tx : txs) {
        indexedScopes.addAll(tx.newScopes());
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

  private boolean conflict(SQLException e) {
    return SqlUnitOfWork.CONCURRENT_CHANGE.equals(e.getSQLState()) || dialect.retryable(e);
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
}
