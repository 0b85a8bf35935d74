package dev.sgm.tck.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.sgm.api.ContentReference;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.TokenStore;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The storage rules of content and access tokens: content kept under its hash, byte for byte, with
 * the principals that put it; tokens kept exactly, found and listed, and revoked once and durably.
 *
 * <p>An area of {@link StorageTck}, which is how to run it: the areas extend one another, so only
 * the suite extends this class.
 */
public abstract class StorageContentTck extends StorageHistoryTck {
  StorageContentTck() {}

  // ---- content -------------------------------------------------------------------------------

  @Test
  @DisplayName("content is kept under its hash, byte for byte; the same hash again changes nothing")
  @Requirement(rule = "storage: content")
  void content_keptByHash() {
    byte[] bytes = "héllo\u0000world".getBytes(StandardCharsets.UTF_8);
    ContentReference reference = new ContentReference("cd".repeat(32), "utf-8", bytes.length);
    storage.putContent(reference, bytes);
    storage.putContent(reference, bytes);
    StoredContent found = storage.getContent(reference.hash()).orElseThrow();
    assertEquals(reference, found.reference());
    assertTrue(java.util.Arrays.equals(bytes, found.bytes()));
    assertTrue(storage.getContent("ef".repeat(32)).isEmpty());
  }

  @Test
  @DisplayName("the principals that put a content are kept with it, each once")
  @Requirement(rule = "storage: content holders")
  void content_holdersAreKept() {
    byte[] bytes = "held by two".getBytes(StandardCharsets.UTF_8);
    ContentReference reference = new ContentReference("ce".repeat(32), "utf-8", bytes.length);
    storage.putContent(reference, bytes, "alice");
    storage.putContent(reference, bytes, "alice");
    storage.putContent(reference, bytes, "bob");
    assertTrue(storage.holdsContent(reference.hash(), "alice"));
    assertTrue(storage.holdsContent(reference.hash(), "bob"));
    assertFalse(storage.holdsContent(reference.hash(), "carol"));
    assertFalse(storage.holdsContent("ef".repeat(32), "alice"));
    assertTrue(
        java.util.Arrays.equals(bytes, storage.getContent(reference.hash()).orElseThrow().bytes()));
  }

  // ---- access tokens -------------------------------------------------------------------------

  private static TokenStore.Entry token(String id, Instant created, Instant expires) {
    byte[] hash = new byte[32];
    for (int i = 0; i < hash.length; i++) {
      hash[i] = (byte) (id.hashCode() * 31 + i * 7);
    }
    return new TokenStore.Entry(
        id, "p-" + id, hash, "[{\"scope\":\"project=alpha\"}]", created, expires, null);
  }

  private static Instant micros(long micros) {
    return Instant.EPOCH.plus(micros, ChronoUnit.MICROS);
  }

  @Test
  @DisplayName("the store keeps access tokens, so that every node sharing it sees the same ones")
  @Requirement(rule = "storage: tokens", level = Requirement.Level.SHOULD)
  void tokens_kept() {
    assertTrue(storage.tokens().isPresent(), "without, only a static token can authenticate");
  }

  @Test
  @DisplayName(
      "a token is kept exactly (hash, grants, times to the microsecond), found by id and listed"
          + " oldest first")
  @Requirement(rule = "storage: tokens")
  void tokens_keptExactlyFoundAndListed() {
    assumeTrue(storage.tokens().isPresent(), "this storage keeps no tokens");
    TokenStore tokens = storage.tokens().orElseThrow();
    long base = now();
    TokenStore.Entry second = token("00000000000000b2", micros(base + 10), null);
    TokenStore.Entry first = token("00000000000000a1", micros(base), micros(base + 999_999));
    tokens.add(second);
    tokens.add(first);
    TokenStore.Entry found = tokens.find(first.id()).orElseThrow();
    assertEntry(first, found);
    assertNull(tokens.find(second.id()).orElseThrow().expiresAt(), "no expiry stays none");
    assertTrue(tokens.find("00000000000000ff").isEmpty());
    assertEquals(
        List.of(first.id(), second.id()),
        tokens.list().stream().map(TokenStore.Entry::id).toList(),
        "oldest first");
  }

  @Test
  @DisplayName("a token is revoked once, stays listed as revoked, and that survives a reopen")
  @Requirement(rule = "storage: tokens")
  void tokens_revokedOnceAndDurably() {
    assumeTrue(storage.tokens().isPresent(), "this storage keeps no tokens");
    TokenStore.Entry entry = token("00000000000000c3", micros(now()), null);
    storage.tokens().orElseThrow().add(entry);
    Instant at = micros(now());
    assertTrue(storage.tokens().orElseThrow().revoke(entry.id(), at));
    assertFalse(storage.tokens().orElseThrow().revoke(entry.id(), micros(now())), "only once");
    assertFalse(storage.tokens().orElseThrow().revoke("00000000000000ee", at), "no such token");
    storage.close();
    storage = reopen();
    TokenStore tokens = storage.tokens().orElseThrow();
    assertEquals(at, tokens.find(entry.id()).orElseThrow().revokedAt(), "revoked, at its time");
    assertEquals(at, tokens.list().get(0).revokedAt(), "listed as revoked");
    assertArrayEquals(entry.hash(), tokens.find(entry.id()).orElseThrow().hash());
  }

  private static void assertEntry(TokenStore.Entry expected, TokenStore.Entry actual) {
    assertEquals(expected.id(), actual.id());
    assertEquals(expected.principal(), actual.principal());
    assertArrayEquals(expected.hash(), actual.hash());
    assertEquals(expected.grants(), actual.grants());
    assertEquals(expected.createdAt(), actual.createdAt());
    assertEquals(expected.expiresAt(), actual.expiresAt());
    assertNull(actual.revokedAt());
  }
}
