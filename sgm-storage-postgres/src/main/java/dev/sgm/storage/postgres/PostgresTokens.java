package dev.sgm.storage.postgres;

import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.TokenStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;

/**
 * The access tokens in the database's {@code access_tokens} table (hashes only), which every node
 * sharing the database reads: a token created through one node authenticates at all of them, and a
 * revocation reaches them all as soon as their short trust of a checked token lapses.
 */
final class PostgresTokens implements TokenStore {
  private static final String COLUMNS =
      "id, principal, hash, grants, created_us, expires_us, revoked_us";

  private final DataSource pool;
  private final Function<SQLException, SgmException> failure;

  PostgresTokens(DataSource pool, Function<SQLException, SgmException> failure) {
    this.pool = pool;
    this.failure = failure;
  }

  @Override
  public void add(Entry token) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
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
      throw failure.apply(e);
    }
  }

  @Override
  public Optional<Entry> find(String id) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement("SELECT " + COLUMNS + " FROM access_tokens WHERE id = ?")) {
      ps.setString(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? Optional.of(entry(rs)) : Optional.empty();
      }
    } catch (SQLException e) {
      throw failure.apply(e);
    }
  }

  @Override
  public List<Entry> list() {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT " + COLUMNS + " FROM access_tokens ORDER BY created_us, id");
        ResultSet rs = ps.executeQuery()) {
      List<Entry> entries = new ArrayList<>();
      while (rs.next()) {
        entries.add(entry(rs));
      }
      return entries;
    } catch (SQLException e) {
      throw failure.apply(e);
    }
  }

  @Override
  public boolean revoke(String id, Instant at) {
    try (Connection c = pool.getConnection();
        PreparedStatement ps =
            c.prepareStatement(
                "UPDATE access_tokens SET revoked_us = ? WHERE id = ? AND revoked_us IS NULL")) {
      ps.setLong(1, Timestamps.toMicros(at));
      ps.setString(2, id);
      return ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw failure.apply(e);
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
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
  }
}
