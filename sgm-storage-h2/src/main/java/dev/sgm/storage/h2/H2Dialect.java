package dev.sgm.storage.h2;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.StoreInUseException;
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
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The embedded H2 database under a {@link SqlStorage}. Every unit of work is one JDBC transaction;
 * commits are written through before they return ({@code WRITE_DELAY=0}), so an acknowledged store
 * survives the process being killed; with {@code fsync} they are also forced to the disk, one sync
 * shared by every commit waiting ({@link GroupSync}), so it survives the machine losing power.
 * Scopes are indexed by their pairs, so descendants are found without scanning records.
 *
 * <p>A transaction's writes get their sequence numbers as it is about to commit ({@link
 * CommitSequence}), and its change-log and version-log entries are written then: so the sequence is
 * in commit order, and a follower reading up to {@link #committedSequence()} sees whole
 * transactions, never a later one before an earlier one.
 */
final class H2Dialect implements SqlDialect {
  private static final System.Logger LOG = System.getLogger(H2Dialect.class.getName());

  /**
   * Settings of every connection: wait up to 10 s for a row lock held by another writer; keep the
   * parsed form of more statements than H2's default 8 (a store runs more than 8 distinct ones, and
   * parsing them again took a tenth of its time).
   */
  static final String SESSION_SETTINGS = "LOCK_TIMEOUT=10000;QUERY_CACHE_SIZE=64";

  private final H2Connections connections;
  private final SqlTokens tokens;
  private final String description;
  private final CommitSequence sequence;
  private final String identity;

  /** Changes at or below this sequence number may have been pruned. */
  private volatile long retainedAfter;

  /**
   * Forces commits to the disk before they are acknowledged; null when the OS having them is
   * enough.
   */
  private final GroupSync sync;

  /**
   * Held by the one unit of work that may write at a time, from its first write to its commit. H2
   * saves a commit by writing each changed map as it reaches it, not all as of one instant, so a
   * save made while another transaction is between logging a write for undo and making it can put
   * the write on the disk without its undo entry. If the process then dies, recovery cannot roll
   * that write back: it stays, uncommitted, seen by no transaction but whichever next gets the dead
   * one's number, as its own. A store sent again after a crash may get that number, find its record
   * already there, unchanged, write nothing, and be lost at its commit. Commits already take turns
   * in H2 (each writes the file before it returns), so writers waiting for each other cost little.
   */
  private final ReentrantLock writeTurn = new ReentrantLock(true);

  /** Compacts the file while it is open; null in memory. */
  private final H2Housekeeping housekeeping;

  H2Dialect(String url, String description, boolean fsync) {
    this.description = description;
    this.connections = new H2Connections(url, 32);
    this.sync = fsync ? new GroupSync(connections::sync) : null;
    this.tokens =
        new SqlTokens(
            connections::lease, this::writingLease, H2Dialect::tokenFailure, this::awaitDurable);
    try {
      try (H2Connections.Lease lease = connections.lease()) {
        H2Schema.migrate(lease.connection());
      }
      this.sequence = new CommitSequence(lastSequence());
      try (H2Connections.Lease lease = connections.lease()) {
        this.identity = SqlStorage.readIdentity(lease.connection());
      }
      this.retainedAfter = readRetainedAfter();
      try (H2Connections.Lease lease = connections.lease()) {
        this.housekeeping = H2Housekeeping.start(lease.connection(), sequence::settled, writeTurn);
      }
    } catch (SQLException e) {
      connections.close();
      if (e.getErrorCode() == org.h2.api.ErrorCode.DATABASE_ALREADY_OPEN_1
          || String.valueOf(e.getMessage()).contains("already in use")) {
        throw new StoreInUseException(description, e);
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
  public String describe() {
    return description;
  }

  @Override
  public SqlLease lease() throws SQLException {
    return connections.lease();
  }

  /** Numbers from this process's commit sequence, then the logs a statement each. */
  @Override
  public SqlSequencer.Numbers numberAndLog(Connection connection, List<LoggedWrite> writes)
      throws SQLException {
    CommitSequence.Range range = sequence.take(writes.size());
    SqlSequencer.Numbers numbers =
        new SqlSequencer.Numbers() {
          @Override
          public long first() {
            return range.first();
          }

          @Override
          public void settle() {
            sequence.settle(range);
          }
        };
    try {
      SqlSequencer.writeLogs(connection, writes, range.first());
      return numbers;
    } catch (SQLException | RuntimeException | Error e) {
      numbers.settle();
      throw e;
    }
  }

  /**
   * A connection for writes made outside units of work (tokens), lent with the write turn, which
   * giving it back gives up.
   */
  private SqlLease writingLease() throws SQLException {
    writeTurn.lock();
    try {
      H2Connections.Lease lease = connections.lease();
      return new SqlLease() {
        @Override
        public Connection connection() {
          return lease.connection();
        }

        @Override
        public PreparedStatement cached(String sql) throws SQLException {
          return lease.cached(sql);
        }

        @Override
        public void close() {
          try {
            lease.close();
          } finally {
            writeTurn.unlock();
          }
        }
      };
    } catch (SQLException | RuntimeException e) {
      writeTurn.unlock();
      throw e;
    }
  }

  /** A unit of work writes once no other one is writing (see {@link #writeTurn}). */
  @Override
  public void beforeWrite() {
    if (!writeTurn.isHeldByCurrentThread()) {
      writeTurn.lock();
    }
  }

  /** A unit that fails, or writes nothing, gives its turn up at its end. */
  @Override
  public void afterWork() {
    giveUpTurn();
  }

  /** Gives the write turn up if this thread's unit of work took it. */
  private void giveUpTurn() {
    if (writeTurn.isHeldByCurrentThread()) {
      writeTurn.unlock();
    }
  }

  /**
   * The commit is written: the next writer may go on while this one waits for its sync, which it
   * can then share.
   */
  @Override
  public void afterCommit() {
    giveUpTurn();
    awaitDurable();
  }

  @Override
  public long queryMark(Connection connection) {
    return sequence.settled();
  }

  @Override
  public long currentSequence(Connection connection) {
    return committedSequence();
  }

  @Override
  public boolean retryable(SQLException e) {
    int code = e.getErrorCode();
    return code == org.h2.api.ErrorCode.DUPLICATE_KEY_1
        || code == org.h2.api.ErrorCode.CONCURRENT_UPDATE_1
        || code == org.h2.api.ErrorCode.DEADLOCK_1
        || code == org.h2.api.ErrorCode.LOCK_TIMEOUT_1
        || code == org.h2.api.ErrorCode.ROW_NOT_FOUND_IN_PRIMARY_INDEX;
  }

  @Override
  public boolean uniqueViolation(SQLException e) {
    return e.getErrorCode() == org.h2.api.ErrorCode.DUPLICATE_KEY_1;
  }

  /**
   * No: a write here checks that the row is still as this transaction read it, on top of its row
   * lock, and a removal reads without locking.
   */
  @Override
  public boolean rowsStayAsRead() {
    return false;
  }

  /** H2's {@code MERGE}, which writes the same values over a row that is there already. */
  @Override
  public String insertOrKeep(String table, String columns, String key) {
    return "MERGE INTO %s(%s) KEY(%s) VALUES (%s)"
        .formatted(table, columns, key, SqlDialect.placeholders(columns));
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

  /** What keeps the file compact; null in memory. For tests. */
  H2Housekeeping housekeeping() {
    return housekeeping;
  }

  /** Syncs made so far ({@code fsync} only): for tests. */
  long syncs() {
    return sync == null ? 0 : sync.syncs();
  }

  private static SgmException tokenFailure(SQLException e) {
    LOG.log(System.Logger.Level.ERROR, "token storage failed", e);
    return new SgmException(ErrorCode.UNAVAILABLE, "the token store failed; see the server's log");
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
                    "SELECT "
                        + SqlRows.CHANGE_COLUMNS
                        + " WHERE c.seq > ? AND c.seq <= ? ORDER BY c.seq LIMIT ?")) {
      ps.setLong(1, after);
      ps.setLong(2, through);
      ps.setInt(3, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          changes.add(SqlRows.change(rs, 1));
        }
      }
    } catch (SQLException e) {
      throw storageError(e);
    }
    return SqlRows.batch(changes, after, through, limit);
  }

  @Override
  public long changesRetainedAfter() {
    return retainedAfter;
  }

  @Override
  public long pruneChangesBefore(SqlStorage storage, long micros) {
    long settled = sequence.settled();
    long[] prunedAndThrough =
        storage.inTransaction(
            tx -> {
              Connection c = SqlStorage.connection(tx);
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
  public Optional<dev.sgm.api.spi.TokenStore> tokens() {
    return Optional.of(tokens);
  }

  @Override
  public void close() {
    if (housekeeping != null) {
      housekeeping.close();
    }
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
