package dev.sgm.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import dev.sgm.core.AccessTokens;
import dev.sgm.transport.http.SgmHttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Two nodes with authentication on, on one database, share its tokens: a token created through one
 * authenticates at the other, and a revocation through one is refused at the other within the trust
 * window of a checked token (2 s, docs/spec/security.md).
 */
class TwoNodesTokensTest {
  /** The trust window the security page states, and the slack of one poll and one request. */
  private static final long REVOCATION_LIMIT_MS = 2000 + 500;

  /** The status a read through {@code node} with {@code token} answers: 404 (none) or 401. */
  private static int read(String node, String token) {
    try {
      new SgmHttpClient(node, Duration.ofSeconds(10), token)
          .call("read", Json.parse("{\"scope\":{\"project\":\"alpha\"},\"id\":\"none\"}"));
      return 200;
    } catch (SgmException e) {
      return e.code().httpStatus();
    }
  }

  @Test
  void aTokenMadeThroughOneNodeWorksAtTheOtherUntilRevokedThroughTheFirst() throws Exception {
    String database = PostgresCluster.get().newDatabase();
    try (PostgresServers.Node a = PostgresServers.start(database, "auth.enabled", "true");
        PostgresServers.Node b = PostgresServers.start(database, "auth.enabled", "true")) {
      AccessTokens.Created created =
          a.runtime()
              .tokens()
              .create(
                  "reader",
                  List.of(new Grants.Grant(Scope.of("project", "alpha"), Grants.Access.READ)),
                  Set.of(),
                  Sensitivity.SECRET,
                  null);
      // Authenticated at B (the record is absent: 404, not 401), so B now trusts it for a while.
      assertEquals(404, read(b.url(), created.token()), "the token made at A works at B");
      assertEquals(401, read(b.url(), created.token() + "x"), "a wrong secret does not");
      assertEquals(1, b.runtime().tokens().list().size(), "B lists the token made at A");

      long revoked = System.nanoTime();
      a.runtime().tokens().revoke(created.id());
      assertEquals(401, read(a.url(), created.token()), "A refuses it at once");
      long refusedAfterMs;
      while (true) {
        int status = read(b.url(), created.token());
        refusedAfterMs = (System.nanoTime() - revoked) / 1_000_000;
        if (status == 401) {
          break;
        }
        assertEquals(404, status);
        assertTrue(
            refusedAfterMs < REVOCATION_LIMIT_MS,
            "B still accepts the token " + refusedAfterMs + " ms after its revocation");
        Thread.sleep(50);
      }
      assertTrue(refusedAfterMs < REVOCATION_LIMIT_MS, refusedAfterMs + " ms");
      System.out.println("revoked through A, refused at B after " + refusedAfterMs + " ms");
    }
  }
}
