package dev.sgm.storage.sql;

import dev.sgm.api.ContentReference;
import dev.sgm.api.StoredContent;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The contents of a {@link SqlStorage}, kept under their hash (storing the same hash again changes
 * nothing), with the principals that put each.
 */
final class SqlContents {
  private final SqlDialect dialect;
  private final SqlTransactions transactions;

  SqlContents(SqlDialect dialect, SqlTransactions transactions) {
    this.dialect = dialect;
    this.transactions = transactions;
  }

  /**
   * Keeps {@code bytes} under {@code reference}'s hash, and notes that {@code holder} put them
   * (unless null), in one unit of work.
   */
  void put(ContentReference reference, byte[] bytes, String holder) {
    transactions.inTransaction(
        tx -> {
          try (PreparedStatement ps =
              SqlStorage.connection(tx)
                  .prepareStatement(
                      dialect.insertOrKeep("contents", "hash, encoding, bytes, body", "hash"))) {
            ps.setString(1, reference.hash());
            ps.setString(2, reference.encoding());
            ps.setLong(3, reference.bytes());
            ps.setBytes(4, bytes);
            ps.executeUpdate();
          } catch (SQLException e) {
            throw new SqlFailure(e);
          }
          if (holder != null) {
            try (PreparedStatement ps =
                SqlStorage.connection(tx)
                    .prepareStatement(
                        dialect.insertOrKeep("content_holders", "hash, holder", "hash, holder"))) {
              ps.setString(1, reference.hash());
              ps.setString(2, holder);
              ps.executeUpdate();
            } catch (SQLException e) {
              throw new SqlFailure(e);
            }
          }
          return null;
        });
  }

  /** Whether {@code holder} has put the content of {@code hash}. */
  boolean holds(String hash, String holder) {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement("SELECT 1 FROM content_holders WHERE hash = ? AND holder = ?")) {
      ps.setString(1, hash);
      ps.setString(2, holder);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next();
      }
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  /** The content of {@code hash}. */
  Optional<StoredContent> get(String hash) {
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement("SELECT encoding, bytes, body FROM contents WHERE hash = ?")) {
      ps.setString(1, hash);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            new StoredContent(
                new ContentReference(hash, rs.getString(1), rs.getLong(2)), rs.getBytes(3)));
      }
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
  }

  /** The hashes after {@code afterHash}, in order, for an export. */
  List<String> hashesAfter(String afterHash, int limit) {
    List<String> hashes = new ArrayList<>();
    try (SqlLease lease = dialect.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
                    "SELECT hash FROM contents WHERE hash > ? ORDER BY hash LIMIT ?")) {
      ps.setString(1, afterHash);
      ps.setInt(2, limit);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          hashes.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw dialect.storageError(e);
    }
    return hashes;
  }
}
