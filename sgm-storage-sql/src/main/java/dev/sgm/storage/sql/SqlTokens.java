package dev.sgm.storage.sql;

import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.TokenStore;
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

/**
 * The access tokens in the store's {@code access_tokens} table (hashes only). On a database that
 * several nodes share, every node reads the same table: a token created through one node
 * authenticates at all of them, and a revocation reaches them all as soon as their short trust of a
 * checked token lapses.
 */
public final class SqlTokens implements TokenStore {
  private static final String COLUMNS =
      "id, principal, hash, grants, created_us, expires_us, revoked_us";

  private final SqlLease.Source connections;
  private final SqlLease.Source writers;
  private final Function<SQLException, SgmException> failure;

  /** Makes a committed change as durable as the store promises before it is acknowledged. */
  private final Runnable awaitDurable;

  /**
   * Tokens on the connections of {@code connections}, written on those of {@code writers} (a store
   * whose writers take turns lends them with the turn); {@code failure} turns a SQL failure into
   * what the caller is told, and {@code awaitDurable} returns once a write is as durable as the
   * store promises.
   */
  public SqlTokens(
      SqlLease.Source connections,
      SqlLease.Source writers,
      Function<SQLException, SgmException> failure,
      Runnable awaitDurable) {
    this.connections = connections;
    this.writers = writers;
    this.failure = failure;
    this.awaitDurable = awaitDurable;
  }

  @Override
  public void add(Entry token) {
    try (SqlLease lease = writers.lease();
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
      throw failure.apply(e);
    }
    awaitDurable.run();
  }

  @Override
  public Optional<Entry> find(String id) {
    try (SqlLease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement("SELECT " + COLUMNS + " FROM access_tokens WHERE id = ?")) {
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
    try (SqlLease lease = connections.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
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
    boolean revoked;
    try (SqlLease lease = writers.lease();
        PreparedStatement ps =
            lease
                .connection()
                .prepareStatement(
                    "UPDATE access_tokens SET revoked_us = ? WHERE id = ? AND revoked_us IS NULL")) {
      ps.setLong(1, Timestamps.toMicros(at));
      ps.setString(2, id);
      revoked = ps.executeUpdate() == 1;
    } catch (SQLException e) {
      throw failure.apply(e);
    }
    awaitDurable.run();
    return revoked;
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
