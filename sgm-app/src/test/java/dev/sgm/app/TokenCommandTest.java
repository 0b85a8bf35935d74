package dev.sgm.app;

import static dev.sgm.app.CliRun.sgm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sgm token} while a server runs: on a data directory another process holds (through it),
 * and on a server with {@code --remote} and an owner token, where a revocation stops the token
 * within the cache's 2 s; anyone but the owner is refused.
 */
class TokenCommandTest {
  private static final String OWNER = "token-command-bootstrap-0123456789abcdef";

  @TempDir Path dir;

  @Test
  void tokensAreManagedThroughTheProcessThatHoldsTheDirectory() {
    Map<String, String> options = Map.of(ConfigLoader.DATA_DIR, dir.toString());
    try (SharedDirectory holder =
        SharedDirectory.open(ConfigLoader.load(options, Map.of()), "cli")) {
      assertTrue(holder.holds(), "this test's holder holds the directory");
      CliRun created =
          sgm(
              "--data",
              dir.toString(),
              "token",
              "create",
              "--principal",
              "alice",
              "--grant",
              "project=alpha:read_write",
              "--expires",
              "1d");
      assertEquals(0, created.code(), created.err());
      assertTrue(created.out().startsWith("sgm_"), created.out());
      String id = created.out().substring(4, 20);
      CliRun listed = sgm("--data", dir.toString(), "token", "list");
      assertEquals(0, listed.code(), listed.err());
      assertEquals("alice", Json.parse(listed.out()).get(0).path("principal").asText());
      assertEquals(0, sgm("--data", dir.toString(), "token", "revoke", id).code());
      JsonNode after = Json.parse(sgm("--data", dir.toString(), "token", "list").out()).get(0);
      assertEquals("revoked", after.path("state").asText());
      CliRun bad =
          sgm(
              "--data",
              dir.toString(),
              "token",
              "create",
              "--principal",
              "bob",
              "--grant",
              "project=alpha:read",
              "--expires",
              "soon");
      assertEquals(2, bad.code(), bad.err());
      assertTrue(bad.err().contains("--expires"), bad.err());
    }
  }

  @Test
  void onARunningServerTheOwnerManagesTokensAndARevocationTakesEffect() throws Exception {
    Map<String, String> options = new LinkedHashMap<>();
    options.put(ConfigLoader.STORAGE_MEMORY, "true");
    options.put("auth.token", OWNER);
    options.put("http.port", "0");
    options.put("transports.enabled", "http");
    options.put("http.log-requests", "false");
    try (SgmRuntime runtime = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
      String url = null;
      for (Transport transport : runtime.startTransports()) {
        url = transport.endpoints().isEmpty() ? url : transport.endpoints().get(0);
      }
      CliRun created =
          sgm(
              "token",
              "create",
              "--principal",
              "ci",
              "--grant",
              "project=alpha:read",
              "--remote",
              url,
              "--token",
              OWNER);
      assertEquals(0, created.code(), created.err());
      String token = created.out();
      String id = token.substring(4, 20);
      CliRun whoami = sgm("call", "whoami", "{}", "--remote", url, "--token", token);
      assertEquals(0, whoami.code(), whoami.err());
      assertEquals("ci", Json.parse(whoami.out()).path("principal").asText());
      CliRun refused = sgm("token", "list", "--remote", url, "--token", token);
      assertEquals(8, refused.code(), refused.err());
      assertTrue(refused.err().contains("only the owner"), refused.err());
      assertTrue(!refused.err().contains("forbidden: forbidden"), refused.err());
      assertEquals(0, sgm("token", "revoke", id, "--remote", url, "--token", OWNER).code());
      long deadline = System.nanoTime() + 10_000_000_000L;
      CliRun after;
      do {
        after = sgm("call", "whoami", "{}", "--remote", url, "--token", token);
      } while (after.code() == 0 && System.nanoTime() < deadline);
      assertEquals(8, after.code(), "the revoked token is refused: " + after.out() + after.err());
      assertTrue(after.err().contains("unauthenticated"), after.err());
    }
  }
}
