package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit trail: with authentication on, one line per operation in {@code audit.file}, written
 * off the request's thread and all there once the runtime is closed; who, what, where, the outcome,
 * and never the content or the token.
 */
class AuditTrailTest {
  /** A credential in GitHub's format, made here: not a real one. */
  private static final String FAKE_TOKEN = "ghp_" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa";

  @TempDir Path dir;

  @Test
  void everyOperationLeavesOneLineWithoutContentOrToken() throws Exception {
    Path file = dir.resolve("audit.log");
    String token;
    int operations = 500;
    try (SgmRuntime runtime =
        TestRuntimes.open("auth.enabled", "true", AuditTrail.FILE, file.toString())) {
      token =
          runtime
              .tokens()
              .create(
                  "auditor",
                  List.of(Grants.Grant.parse("project=alpha:read_write")),
                  Set.of("*"),
                  Sensitivity.SECRET,
                  Duration.ofDays(1))
              .token();
      Caller caller = runtime.service().authenticate("http", "Bearer " + token, "192.0.2.5");
      for (int i = 0; i < operations - 1; i++) {
        runtime
            .service()
            .invoke(
                caller,
                "store",
                Json.parse(
                    "{\"record\":{\"id\":\"n"
                        + i
                        + "\",\"type\":\"note\",\"scope\":{\"project\":\"alpha\"},"
                        + "\"content\":\"secret words of the record\",\"provenance\":{\"agent\":\"a\"},"
                        + "\"data\":{\"env\":\"GITHUB_TOKEN="
                        + FAKE_TOKEN
                        + "\"}}}"));
      }
      assertThrows(
          SgmException.class,
          () ->
              runtime
                  .service()
                  .invoke(
                      caller,
                      "read",
                      Json.parse("{\"scope\":{\"project\":\"beta\"},\"id\":\"x\"}")));
    }
    List<String> lines = Files.readAllLines(file);
    assertEquals(operations, lines.size());
    JsonNode first = Json.parse(lines.get(0));
    assertEquals("auditor", first.path("principal").asText());
    assertEquals("store", first.path("operation").asText());
    assertEquals("project=alpha", first.path("scope").asText());
    assertEquals("n0", first.path("id").asText());
    assertEquals("ok", first.path("outcome").asText());
    assertTrue(first.path("at").asText().startsWith("20"), first.toString());
    JsonNode last = Json.parse(lines.get(lines.size() - 1));
    assertEquals("read", last.path("operation").asText());
    assertEquals("forbidden", last.path("outcome").asText());
    String all = String.join("\n", lines);
    assertFalse(all.contains("secret words"), "no content in the audit trail");
    assertFalse(all.contains(FAKE_TOKEN), "no credential in the audit trail");
    assertFalse(all.contains(token.substring(21)), "no token in the audit trail");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
  }

  @Test
  void eachLineIsOneJsonObjectWhateverTheRequestNames() throws Exception {
    Path file = dir.resolve("audit.log");
    String odd = "quote\" back\\slash\nnew line\u0001 é";
    try (SgmRuntime runtime =
        TestRuntimes.open("auth.enabled", "true", AuditTrail.FILE, file.toString())) {
      Caller owner = Caller.embedded();
      for (String request :
          new String[] {
            "{\"scope\":{\"project\":\"alpha\"},\"id\":" + Json.write(TextNode.valueOf(odd)) + "}",
            "{\"scope\":{\"project\":7},\"id\":\"x\"}",
            "{}"
          }) {
        try {
          runtime.service().invoke(owner, "read", Json.parse(request));
        } catch (SgmException e) {
          // The outcome is what the line records.
        }
      }
    }
    List<String> lines = Files.readAllLines(file);
    assertEquals(3, lines.size(), lines.toString());
    JsonNode first = Json.parse(lines.get(0));
    assertEquals(odd, first.path("id").asText());
    assertFalse(first.path("outcome").asText().isEmpty(), first.toString());
    assertEquals("owner", first.path("principal").asText());
    assertEquals("embedded", first.path("origin").asText());
    assertEquals("project=alpha", first.path("scope").asText());
    JsonNode second = Json.parse(lines.get(1));
    assertEquals("(invalid)", second.path("scope").asText());
    assertEquals("invalid_request", second.path("outcome").asText());
    JsonNode third = Json.parse(lines.get(2));
    assertEquals("-", third.path("scope").asText());
    assertEquals("-", third.path("id").asText());
  }
}
