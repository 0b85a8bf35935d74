package dev.sgm.storage.h2;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.TokenStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The access tokens of the embedded store, in its {@code access_tokens} table (hashes only). */
final class H2Tokens implements TokenStore {
  private static final System.Logger LOG = System.getLogger(H2Tokens.class.getName());
  private static final String COLUMNS =
      "id, principal, hash, grants, created_us, expires_us, revoked_us";

  private final H2Connections connections;

  /** Makes a committed change as durable as the store promises before it is acknowledged. */
  private final Runnable awaitDurable;

  H2Tokens(H2Connections connections, Runnable awaitDurable) {
    this.connections = connections;
    this.awaitDurable = awaitDurable;
  }

  @Override
  public void add(Entry token) {
    try (H2Connections.Lease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
                    "INSERT INTO access_tokens(" + COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, NULL)")) {
      ps.setString(1, token.id());
      ps.setString(2, token.principal());
      ps.setBytes(3, token.hash());
      ps.setString(4, token.grants());
      ps.setLong(5, Timestamps.toMicros(token.createdAt()));
      if (token.expiresAt() == null) {
        ps.setNull(6, Types.BIGINT);
      } else {
        ps.setLong(6, Timestamps.toMicros(token.expiresAt()));
      }
      ps.executeUpdate();
    } catch (SQLException e) {
      throw failure(e);
    }
    awaitDurable.run();
  }

  @Override
  public Optional<Entry> find(String id) {
    try (H2Connections.Lease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement("SELECT " + COLUMNS + " FROM access_tokens WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(entry(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public List<Entry> list() {
    try (H2Connections.Lease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
                    "SELECT " + COLUMNS + " FROM access_tokens ORDER BY created_us, id")) {
      List<Entry> entries = new ArrayList<>();
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          entries.add(entry(rs));
        }
      }
      return entries;
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  @Override
  public boolean revoke(String id, Instant at) {
    try (H2Connections.Lease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
                    "UPDATE access_tokens SET revoked_us = ? WHERE id = ? AND revoked_us IS NULL")) {
      ps.setLong(1, Timestamps.toMicros(at));
      ps.setString(2, id);
      boolean revoked = ps.executeUpdate() == 1;
      awaitDurable.run();
      return revoked;
    } catch (SQLException e) {
      throw failure(e);
    }
  }

  private static Entry entry(ResultSet rs) throws SQLException {
    long expires = rs.getLong(6);
    Instant expiresAt = rs.wasNull() ? null : fromMicros(expires);
    long revoked = rs.getLong(7);
    Instant revokedAt = rs.wasNull() ? null : fromMicros(revoked);
    return new Entry(
        rs.getString(1),
        rs.getString(2),
        rs.getBytes(3),
        rs.getString(4),
        fromMicros(rs.getLong(5)),
        expiresAt,
        revokedAt);
  }

  private static Instant fromMicros(long micros) {
    return Instant.EPOCH.plus(micros, java.time.temporal.ChronoUnit.MICROS);
  }

  private static SgmException failure(SQLException e) {
    LOG.log(System.Logger.Level.ERROR, "token storage failed", e);
    return new SgmException(ErrorCode.UNAVAILABLE, "the token store failed; see the server's log");
  }
}
