package dev.sgm.storage.sql;

import dev.sgm.api.Scope;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageQuery.Position;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * The reads of a {@link SqlStorage} outside units of work, each on a connection of its own: records
 * by identity, query pages, live rows by row key (with the committed sequence where the database
 * keeps it), and the scans that a rebuild or an export pages through.
 */
final class SqlReads {
  /**
   * The most row keys {@link #live} binds to one query; more are asked in turn. H2 refuses an array
   * of more than 65,536 values.
   */
  static final int LIVE_KEYS_PER_QUERY = 10_000;

  private final SqlDialect dialect;

  SqlReads(SqlDialect dialect) {
    this.dialect = dialect;
  }

  /** The record of {@code scope} and {@code id}, hidden or not. */
  Optional<StoredRecord> find(Scope scope, String id) {
    try (SqlLease lease = dialect.lease()) {
      return SqlRows.find(lease.cached(SqlRows.FIND), scope, id);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  /** A page of {@code query}'s matches, counted and read at one sequence mark. */
  StoragePage query(StorageQuery query) {
    try (SqlLease lease = dialect.lease()) {
      Connection connection = lease.connection();
      long mark = query.mark() >= 0 ? query.mark() : dialect.queryMark(connection);
      SqlQuery sql = SqlQuery.build(query, mark);
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
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  /** The live rows among {@code rowKeys}, asked {@link #LIVE_KEYS_PER_QUERY} at a time. */
  List<StoredRecord> live(Collection<Long> rowKeys) {
    if (rowKeys.isEmpty()) {
      return List.of();
    }
    Long[] keys = rowKeys.toArray(Long[]::new);
    try (SqlLease lease = dialect.lease()) {
      PreparedStatement ps =
          lease.cached(SqlRows.ROW_COLUMNS + " WHERE pk = ANY(?) AND deleted = FALSE");
      List<StoredRecord> rows = new ArrayList<>();
      for (int from = 0; from < keys.length; from += LIVE_KEYS_PER_QUERY) {
        int to = Math.min(keys.length, from + LIVE_KEYS_PER_QUERY);
        dialect.bindRowKeys(lease.connection(), ps, 1, Arrays.copyOfRange(keys, from, to));
        rows.addAll(SqlRows.readRows(ps));
      }
      return rows;
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  /**
   * The live rows among {@code rowKeys} (at most {@link #LIVE_KEYS_PER_QUERY}) and the committed
   * sequence that {@code sequence}, the dialect's query of it, reads in the same statement.
   */
  Storage.LiveRows liveAndCommitted(Collection<Long> rowKeys, String sequence) {
    // The one row of the sequence, joined to the rows asked for: a row even when none is live.
    String sql =
        "SELECT s.committed, "
            + SqlRows.JOINED_ROW_FIELDS
            + " FROM ("
            + sequence
            + ") s(committed) LEFT JOIN records r ON r.pk = ANY(?) AND r.deleted = FALSE";
    try (SqlLease lease = dialect.lease()) {
      PreparedStatement ps = lease.cached(sql);
      dialect.bindRowKeys(lease.connection(), ps, 1, rowKeys.toArray(Long[]::new));
      long committed = -1;
      List<StoredRecord> rows = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          committed = rs.getLong(1);
          if (rs.getString(2) != null) {
            rows.add(SqlRows.row(rs, 2));
          }
        }
      }
      if (committed < 0) {
        throw new SQLException("the committed sequence was not read: " + sequence);
      }
      return new Storage.LiveRows(rows, committed);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  /** The live rows after the row key {@code afterRowKey}, in row-key order. */
  List<StoredRecord> scanLive(long afterRowKey, int limit) {
    return rowsAfter(
        SqlRows.ROW_COLUMNS + " WHERE pk > ? AND deleted = FALSE ORDER BY pk LIMIT ?",
        afterRowKey,
        limit);
  }

  /** Every row after the row key {@code afterRowKey}, hidden ones too, in row-key order. */
  List<StoredRecord> scanRows(long afterRowKey, int limit) {
    return rowsAfter(SqlRows.ROW_COLUMNS + " WHERE pk > ? ORDER BY pk LIMIT ?", afterRowKey, limit);
  }

  /** The rows {@code sql} selects with the parameters {@code after} and {@code limit}. */
  private List<StoredRecord> rowsAfter(String sql, long after, int limit) {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps = lease.connection().prepareStatement(sql)) {
      ps.setLong(1, after);
      ps.setInt(2, limit);
      return SqlRows.readRows(ps);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  /** The version log after {@code afterSeq}, in sequence order. */
  List<VersionEntry> versionsAfter(long afterSeq, int limit) {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
                    SqlRows.VERSION_COLUMNS + " WHERE seq > ? ORDER BY seq LIMIT ?")) {
      ps.setLong(1, afterSeq);
      ps.setInt(2, limit);
      return SqlRows.readVersions(ps);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  /** Every snapshot, oldest first. */
  List<SnapshotEntry> allSnapshots() {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(SqlRows.SNAPSHOT_COLUMNS + " ORDER BY seq, scope_key, name")) {
      return SqlRows.readSnapshots(ps);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  /** How many rows are live. */
  long countLive() {
    try (SqlLease lease = dialect.lease();
        Statement s = lease.connection().createStatement();
        ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM records WHERE deleted = FALSE")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }
}
