package dev.sgm.api.spi;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Where access tokens are kept, beside the records, so that every node of a shared database sees
 * the same tokens and a revocation. Only a token's hash is kept; the engine decides everything else
 * (what a token may do, whether it has expired).
 */
public interface TokenStore {
  /** One token as kept: never its secret. */
  record Entry(
      String id,
      String principal,
      byte[] hash,
      String grants,
      Instant createdAt,
      Instant expiresAt,
      Instant revokedAt) {}

  /** Keeps a new token. */
  void add(Entry token);

  /** The token with this id, revoked or not. */
  Optional<Entry> find(String id);

  /** Every token, oldest first. */
  List<Entry> list();

  /** Marks the token revoked; false when there is no live token of that id. */
  boolean revoke(String id, Instant at);
}
