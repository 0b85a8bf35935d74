package dev.sgm.storage.sql;

import dev.sgm.api.Scope;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The shared schema's rows read into the SPI's types (records, version-log entries, snapshots,
 * changes), with the column lists that select them in the order they are read.
 */
public final class SqlRows {
  /** One record by (scope, id), without its scope and id, as {@link #find} reads it. */
  static final String FIND =
      "SELECT type, version, created_us, updated_us, deleted, doc, pk, created_seq FROM records"
          + " WHERE scope_key = ? AND id = ?";

  /** The columns of the version log, as {@link #readVersions} reads them. */
  public static final String VERSION_COLUMN_LIST =
      "scope_key, id, version, seq, written_us, writer, deleted, doc";

  static final String VERSION_COLUMNS = "SELECT " + VERSION_COLUMN_LIST + " FROM record_versions";

  static final String SNAPSHOT_COLUMNS =
      "SELECT scope_key, name, descendants, seq, created_us, created_by FROM snapshots";

  private static final String ROW_FIELDS =
      "scope_key, id, type, version, created_us, updated_us, deleted, doc, pk, created_seq";

  static final String ROW_COLUMNS = "SELECT " + ROW_FIELDS + " FROM records";

  /** {@link #ROW_FIELDS} of the table {@code records} joined as {@code r}. */
  static final String JOINED_ROW_FIELDS = ROW_FIELDS.replaceAll("(\\w+)", "r.$1");

  /**
   * The columns of a change joined with its record as it is now: the change's sequence number,
   * kind, scope and id; the record's {@code ROW_COLUMNS} (null when it is gone); what the write was
   * (type, version, writer, time). Named apart, so that a subquery may select them all.
   */
  public static final String CHANGE_COLUMNS =
      "c.seq, c.kind, c.scope_key AS change_scope, c.id AS change_id, r.scope_key, r.id, r.type,"
          + " r.version, r.created_us, r.updated_us, r.deleted, r.doc, r.pk, r.created_seq,"
          + " c.type AS change_type, c.version AS change_version, c.agent, c.at_us FROM changes c"
          + " LEFT JOIN records r ON r.scope_key = c.scope_key AND r.id = c.id";

  private SqlRows() {}

  /** A row read from {@link #ROW_COLUMNS}' columns, starting at column {@code first}. */
  static StoredRecord row(ResultSet rs, int first) throws SQLException {
    return new StoredRecord(
        Scope.parseCanonical(rs.getString(first)),
        rs.getString(first + 1),
        rs.getString(first + 2),
        rs.getLong(first + 3),
        rs.getLong(first + 4),
        rs.getLong(first + 5),
        rs.getBoolean(first + 6),
        rs.getString(first + 7),
        RecordIndex.NONE,
        rs.getLong(first + 8),
        rs.getLong(first + 9));
  }

  /** The rows that {@code ps} selects in {@link #ROW_COLUMNS}' columns. */
  static List<StoredRecord> readRows(PreparedStatement ps) throws SQLException {
    List<StoredRecord> rows = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rows.add(row(rs, 1));
      }
    }
    return rows;
  }

  /** The record {@code ps}, a {@link #FIND} query, selects for {@code scope} and {@code id}. */
  static Optional<StoredRecord> find(PreparedStatement ps, Scope scope, String id)
      throws SQLException {
    ps.setString(1, scope.canonical());
    ps.setString(2, id);
    try (ResultSet rs = ps.executeQuery()) {
      if (!rs.next()) {
        return Optional.empty();
      }
      return Optional.of(
          new StoredRecord(
              scope,
              id,
              rs.getString(1),
              rs.getLong(2),
              rs.getLong(3),
              rs.getLong(4),
              rs.getBoolean(5),
              rs.getString(6),
              RecordIndex.NONE,
              rs.getLong(7),
              rs.getLong(8)));
    }
  }

  /** The version-log entries that {@code ps} selects in {@link #VERSION_COLUMN_LIST}'s columns. */
  public static List<VersionEntry> readVersions(PreparedStatement ps) throws SQLException {
    List<VersionEntry> entries = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        entries.add(
            new VersionEntry(
                Scope.parseCanonical(rs.getString(1)),
                rs.getString(2),
                rs.getLong(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getString(6),
                rs.getBoolean(7),
                rs.getString(8)));
      }
    }
    return entries;
  }

  /** The snapshots that {@code ps} selects in {@link #SNAPSHOT_COLUMNS}' columns. */
  static List<SnapshotEntry> readSnapshots(PreparedStatement ps) throws SQLException {
    List<SnapshotEntry> entries = new ArrayList<>();
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        entries.add(
            new SnapshotEntry(
                Scope.parseCanonical(rs.getString(1)),
                rs.getString(2),
                rs.getBoolean(3),
                rs.getLong(4),
                rs.getLong(5),
                rs.getString(6)));
      }
    }
    return entries;
  }

  /** The change read from {@link #CHANGE_COLUMNS}' columns, starting at column {@code first}. */
  public static Change change(ResultSet rs, int first) throws SQLException {
    return new Change(
        rs.getLong(first),
        Change.Kind.fromWireName(rs.getString(first + 1)),
        Scope.parseCanonical(rs.getString(first + 2)),
        rs.getString(first + 3),
        rs.getString(first + 14),
        rs.getLong(first + 15),
        rs.getString(first + 16),
        rs.getLong(first + 17),
        rs.getString(first + 4) == null ? null : row(rs, first + 4));
  }

  /**
   * The batch of {@code changes} read after {@code after} up to {@code through}, at most {@code
   * limit} of them.
   */
  public static ChangeBatch batch(List<Change> changes, long after, long through, int limit) {
    // A full batch may stop short of what is committed; the next one goes on from its last change.
    long caughtUp = changes.size() == limit ? changes.get(changes.size() - 1).seq() : through;
    return new ChangeBatch(changes, Math.max(after, caughtUp));
  }

  /** Binds {@code params} in order, from the first parameter of {@code ps} on. */
  public static void bindAll(PreparedStatement ps, List<Object> params) throws SQLException {
    for (int i = 0; i < params.size(); i++) {
      ps.setObject(i + 1, params.get(i));
    }
  }
}
