package dev.sgm.storage.sql;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;

/**
 * The write sequence in commit order: a committing unit of work's writes are numbered, and their
 * logs written (the rows' {@code seq} and {@code created_seq}, the change log, the version log), on
 * its connection as the last step before the commit, so that a follower reading up to the committed
 * sequence sees whole transactions, never a later one before an earlier one. How the numbers are
 * handed out is the database's ({@link Allocation}).
 */
public final class SqlSequencer {
  /** How a database hands out numbers in commit order. */
  @FunctionalInterface
  public interface Allocation {
    /**
     * Numbers a committing transaction's {@code writes}, on its connection as its last step before
     * the commit so that they are in commit order, and writes what their logs say ({@link
     * #writeLogs} does that part); on failure the numbers are settled before this throws.
     */
    Numbers numberAndLog(Connection connection, List<LoggedWrite> writes) throws SQLException;
  }

  /** The numbers a transaction's writes get as it commits. */
  public interface Numbers {
    /** The first number; the writes get it and those after it, in the order they were made. */
    long first();

    /** Called once the transaction has committed, or failed: its numbers are settled. */
    void settle();
  }

  private final Allocation allocation;

  SqlSequencer(Allocation allocation) {
    this.allocation = allocation;
  }

  /**
   * Numbers {@code writes} and writes their logs ({@link Allocation#numberAndLog}), then commits
   * the transaction on {@code connection}, as its last step.
   *
   * @return the numbers the writes got, or null when there were none; the caller settles them once
   *     the commit is published (on failure this method has settled them itself)
   */
  Numbers commit(Connection connection, List<LoggedWrite> writes) throws SQLException {
    if (writes.isEmpty()) {
      connection.commit();
      return null;
    }
    Numbers numbers = allocation.numberAndLog(connection, writes);
    try {
      connection.commit();
      return numbers;
    } catch (SQLException | RuntimeException | Error e) {
      numbers.settle();
      throw e;
    }
  }

  /** Numbers from {@code first} on that the commit itself settles. */
  public static Numbers settledNumbers(long first) {
    return new Numbers() {
      @Override
      public long first() {
        return first;
      }

      @Override
      public void settle() {}
    };
  }

  /**
   * Gives a transaction's writes their sequence numbers, from {@code first} on in the order they
   * were made, and writes what their logs say, a statement a log: an {@link Allocation} may do so
   * once it has the numbers.
   */
  public static void writeLogs(Connection connection, List<LoggedWrite> logged, long first)
      throws SQLException {
    try (PreparedStatement rows =
            connection.prepareStatement(
                "UPDATE records SET seq = ?, created_seq = CASE WHEN ? THEN ? ELSE created_seq END"
                    + " WHERE pk = ?");
        PreparedStatement changes =
            connection.prepareStatement(
                "INSERT INTO changes(seq, scope_key, id, kind, type, version, agent, at_us)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
        PreparedStatement versions =
            connection.prepareStatement(
                "INSERT INTO record_versions(scope_key, id, seq, version, written_us, writer,"
                    + " deleted, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
      long seq = first;
      boolean anyRow = false;
      boolean anyVersion = false;
      for (LoggedWrite write : logged) {
        if (write.pk() != null) {
          rows.setLong(1, seq);
          rows.setBoolean(2, write.created());
          rows.setLong(3, seq);
          rows.setLong(4, write.pk());
          rows.addBatch();
          anyRow = true;
        }
        changes.setLong(1, seq);
        changes.setString(2, write.scope().canonical());
        changes.setString(3, write.id());
        changes.setString(4, write.log().kind().wireName());
        changes.setString(5, write.type());
        changes.setLong(6, write.version());
        changes.setString(7, write.log().writer());
        changes.setLong(8, write.micros());
        changes.addBatch();
        if (write.log().keepVersion()) {
          versions.setString(1, write.scope().canonical());
          versions.setString(2, write.id());
          versions.setLong(3, seq);
          versions.setLong(4, write.version());
          versions.setLong(5, write.micros());
          versions.setString(6, write.log().writer());
          versions.setBoolean(7, write.deleted());
          versions.setString(8, write.document());
          versions.addBatch();
          anyVersion = true;
        }
        seq++;
      }
      if (anyRow) {
        rows.executeBatch();
      }
      changes.executeBatch();
      if (anyVersion) {
        versions.executeBatch();
      }
    }
  }
}
