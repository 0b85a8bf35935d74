package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.TokenStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A token that has matched is not hashed again within its recheck interval, and that changes
 * nothing a caller can observe: a wrong secret beside it is still refused, expiry takes effect at
 * its instant, and a revocation made by another node (straight in the shared store) takes effect at
 * the next recheck.
 */
class AccessTokensTest {
  private static final String ADDRESS = "198.51.100.4";

  /** A shared store as another node sees it: revocations land here without this node knowing. */
  private static final class SharedStore implements TokenStore {
    final Map<String, Entry> entries = new LinkedHashMap<>();
    int finds;

    @Override
    public synchronized void add(Entry token) {
      entries.put(token.id(), token);
    }

    @Override
    public synchronized Optional<Entry> find(String id) {
      finds++;
      return Optional.ofNullable(entries.get(id));
    }

    @Override
    public synchronized List<Entry> list() {
      return new ArrayList<>(entries.values());
    }

    @Override
    public synchronized boolean revoke(String id, Instant at) {
      Entry e = entries.get(id);
      if (e == null || e.revokedAt() != null) {
        return false;
      }
      entries.put(
          id,
          new Entry(e.id(), e.principal(), e.hash(), e.grants(), e.createdAt(), e.expiresAt(), at));
      return true;
    }
  }

  /** A clock the test moves. */
  private static final class MovableClock extends Clock {
    Instant now = Instant.parse("2026-12-01T12:00:00Z");

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return now;
    }
  }

  private final SharedStore store = new SharedStore();
  private final MovableClock clock = new MovableClock();
  private final long[] nanos = {0};
  private final AccessTokens tokens =
      new AccessTokens(
          TestRuntimes.memory("auth.enabled", "true"), Optional.of(store), clock, () -> nanos[0]);

  private AccessTokens.Created create(Duration expiresIn) {
    return tokens.create(
        "ci",
        List.of(Grants.Grant.parse("project=alpha:read_write")),
        Set.of(),
        Sensitivity.SECRET,
        expiresIn);
  }

  private String principal(String token) {
    return tokens.authenticate("http", "Bearer " + token, ADDRESS).principal().orElseThrow();
  }

  private ErrorCode refusal(String token) {
    return assertThrows(
            SgmException.class, () -> tokens.authenticate("http", "Bearer " + token, ADDRESS))
        .code();
  }

  @Test
  void aWrongSecretBesideAMatchedTokenIsStillRefused() {
    String token = create(null).token();
    assertEquals("ci", principal(token));
    assertEquals("ci", principal(token));
    String last = token.substring(token.length() - 1);
    String first = token.substring(21, 22);
    for (String wrong :
        new String[] {
          token.substring(0, token.length() - 1) + (last.equals("A") ? "B" : "A"),
          token.substring(0, 21) + (first.equals("A") ? "B" : "A") + token.substring(22),
          token.substring(0, token.length() - 1),
          token + "A",
          token.toUpperCase(java.util.Locale.ROOT)
        }) {
      assertEquals(ErrorCode.UNAUTHENTICATED, refusal(wrong), wrong);
    }
    // The wrong ones did not displace the matched one.
    assertEquals("ci", principal(token));
  }

  @Test
  void theHeaderMayNameTheSchemeInAnyCaseWithAnyWhitespace() {
    String token = create(null).token();
    for (String header :
        new String[] {
          "Bearer " + token, "bearer " + token, "BEARER\t" + token, "  Bearer   " + token + "  "
        }) {
      assertEquals(
          "ci", tokens.authenticate("http", header, ADDRESS).principal().orElseThrow(), header);
    }
    for (String header :
        new String[] {"Bearer" + token, "Basic " + token, "Bearer " + token + " x"}) {
      assertEquals(
          ErrorCode.UNAUTHENTICATED,
          assertThrows(SgmException.class, () -> tokens.authenticate("http", header, ADDRESS))
              .code(),
          header);
    }
  }

  @Test
  void aMatchedTokenIsNotLookedUpAgainUntilItsRecheck() {
    String token = create(null).token();
    principal(token);
    int finds = store.finds;
    for (int i = 0; i < 100; i++) {
      principal(token);
    }
    assertEquals(finds, store.finds, "no lookup within the recheck interval");
    nanos[0] += AccessTokens.RECHECK.toNanos();
    principal(token);
    assertEquals(finds + 1, store.finds, "one lookup at the recheck");
  }

  @Test
  void aRevocationByAnotherNodeTakesEffectAtTheRecheck() {
    AccessTokens.Created created = create(null);
    assertEquals("ci", principal(created.token()));
    assertTrue(store.revoke(created.id(), clock.instant()));
    nanos[0] += AccessTokens.RECHECK.toNanos() - 1;
    // Still within the interval that the documentation allows a revocation to take.
    assertEquals("ci", principal(created.token()));
    nanos[0] += 1;
    assertEquals(ErrorCode.UNAUTHENTICATED, refusal(created.token()));
    nanos[0] += AccessTokens.RECHECK.toNanos();
    assertEquals(ErrorCode.UNAUTHENTICATED, refusal(created.token()));
  }

  @Test
  void aRevocationOnThisNodeTakesEffectAtOnce() {
    AccessTokens.Created created = create(null);
    assertEquals("ci", principal(created.token()));
    tokens.revoke(created.id());
    assertEquals(ErrorCode.UNAUTHENTICATED, refusal(created.token()));
  }

  @Test
  void expiryTakesEffectAtItsInstantWithinARecheckInterval() {
    String token = create(Duration.ofSeconds(10)).token();
    assertEquals("ci", principal(token));
    clock.now = clock.now.plusSeconds(10).minusNanos(1000);
    assertEquals("ci", principal(token));
    clock.now = clock.now.plusNanos(1000);
    assertEquals(ErrorCode.UNAUTHENTICATED, refusal(token));
    nanos[0] += AccessTokens.RECHECK.toNanos();
    assertEquals(ErrorCode.UNAUTHENTICATED, refusal(token));
  }
}
