package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Grants decided in the engine: scopes outside them are forbidden when named and invisible in
 * broader retrieves (records, totals, profile answers); records above a clearance are redacted and
 * not overwritable; an agent the token may not speak for is refused; tokens authenticate, expire
 * and revoke.
 */
class AuthorizationTest {
  private static SgmRuntime runtime;
  private static SgmService engine;

  @BeforeAll
  static void open() {
    runtime = TestRuntimes.open();
    engine = runtime.service();
    Caller owner = Caller.embedded();
    store(owner, "a1", "{'project':'alpha'}", "alpha note about maven", null);
    store(owner, "a2", "{'project':'alpha','session':'s1'}", "alpha session maven", null);
    store(owner, "b1", "{'project':'beta'}", "beta note about maven", null);
    store(owner, "s1", "{'project':'alpha'}", "secret maven plan", "secret");
    store(owner, "x1", "{'project':'x'}", "x root", null);
    store(owner, "x2", "{'project':'x','team':'red'}", "x red maven", null);
    store(owner, "x3", "{'project':'x','team':'blue'}", "x blue maven", null);
  }

  @AfterAll
  static void close() {
    runtime.close();
  }

  private static JsonNode store(
      Caller caller, String id, String scope, String content, String level) {
    String sensitivity = level == null ? "" : ",'sensitivity':{'level':'" + level + "'}";
    return engine.invoke(
        caller,
        "store",
        Json.parse(
            ("{'record':{'id':'"
                    + id
                    + "','type':'note','scope':"
                    + scope
                    + ",'content':'"
                    + content
                    + "','provenance':{'agent':'bot'}"
                    + sensitivity
                    + "}}")
                .replace('\'', '"')));
  }

  private static Caller principal(Sensitivity clearance, String... grants) {
    return Caller.authenticated(
        "p",
        "http",
        new Grants(
            java.util.Arrays.stream(grants).map(Grants.Grant::parse).toList(),
            Set.of("bot"),
            clearance));
  }

  private static JsonNode retrieve(Caller caller, String query) {
    return engine.invoke(caller, "retrieve", Json.parse(query.replace('\'', '"')));
  }

  private static List<String> ids(JsonNode page) {
    List<String> ids = new java.util.ArrayList<>();
    page.path("records").forEach(r -> ids.add(r.path("id").asText()));
    return ids.stream().sorted().toList();
  }

  @Test
  void aScopeOutsideTheGrantsIsForbiddenWhenNamed() {
    Caller alpha = principal(Sensitivity.SECRET, "project=alpha:read_write");
    SgmException read =
        assertThrows(
            SgmException.class,
            () ->
                engine.invoke(
                    alpha, "read", Json.parse("{\"scope\":{\"project\":\"beta\"},\"id\":\"b1\"}")));
    assertEquals(ErrorCode.FORBIDDEN, read.code());
    // The same answer whether or not the record exists: nothing is learnt about beta.
    SgmException missing =
        assertThrows(
            SgmException.class,
            () ->
                engine.invoke(
                    alpha, "read", Json.parse("{\"scope\":{\"project\":\"beta\"},\"id\":\"no\"}")));
    assertEquals(read.getMessage(), missing.getMessage());
    assertEquals(
        ErrorCode.FORBIDDEN,
        assertThrows(SgmException.class, () -> retrieve(alpha, "{'scope':{'project':'beta'}}"))
            .code());
    assertEquals(
        ErrorCode.FORBIDDEN,
        assertThrows(SgmException.class, () -> store(alpha, "n", "{'project':'beta'}", "x", null))
            .code());
  }

  @Test
  void aReadGrantDoesNotWrite() {
    Caller reader = principal(Sensitivity.SECRET, "project=alpha:read");
    assertEquals(
        "alpha note about maven",
        engine
            .invoke(reader, "read", Json.parse("{\"scope\":{\"project\":\"alpha\"},\"id\":\"a1\"}"))
            .path("record")
            .path("content")
            .asText());
    SgmException e =
        assertThrows(
            SgmException.class, () -> store(reader, "a1", "{'project':'alpha'}", "changed", null));
    assertEquals(ErrorCode.FORBIDDEN, e.code());
    assertEquals(
        ErrorCode.FORBIDDEN,
        assertThrows(
                SgmException.class,
                () ->
                    engine.invoke(
                        reader,
                        "delete",
                        Json.parse("{\"scope\":{\"project\":\"alpha\"},\"id\":\"a1\"}")))
            .code());
  }

  @Test
  void broaderRetrievesKeepToTheGrantsInRecordsTotalsAndText() {
    Caller red = principal(Sensitivity.SECRET, "project=x;team=red:read");
    JsonNode all = retrieve(red, "{'scope':{'project':'x'},'scope_mode':'descendants'}");
    assertEquals(List.of("x2"), ids(all));
    assertEquals(1, all.path("total").asInt());
    JsonNode text =
        retrieve(red, "{'scope':{'project':'x'},'scope_mode':'descendants','text':'maven'}");
    assertEquals(List.of("x2"), ids(text));
    assertEquals(1, text.path("total").asInt());
    JsonNode paged =
        retrieve(red, "{'scope':{'project':'x'},'scope_mode':'descendants','limit':1}");
    assertFalse(paged.has("next_cursor"), paged.toString());
    Caller session = principal(Sensitivity.SECRET, "project=alpha;session=s1:read");
    JsonNode lineage =
        retrieve(session, "{'scope':{'project':'alpha','session':'s1'},'scope_mode':'ancestors'}");
    assertEquals(List.of("a2"), ids(lineage), "the project's records are not granted");
  }

  @Test
  void recordsAboveTheClearanceAreRedactedUnrankedAndNotOverwritable() {
    Caller internal = principal(Sensitivity.INTERNAL, "project=alpha:read_write");
    JsonNode read =
        engine
            .invoke(
                internal, "read", Json.parse("{\"scope\":{\"project\":\"alpha\"},\"id\":\"s1\"}"))
            .path("record");
    assertTrue(read.path("redacted").asBoolean(), read.toString());
    assertFalse(read.has("content"), read.toString());
    JsonNode text = retrieve(internal, "{'scope':{'project':'alpha'},'text':'plan'}");
    assertEquals(List.of(), ids(text), "hidden text matches nothing");
    assertEquals(0, text.path("total").asInt());
    JsonNode listed = retrieve(internal, "{'scope':{'project':'alpha'}}");
    assertTrue(ids(listed).contains("s1"));
    for (JsonNode record : listed.path("records")) {
      assertFalse(record.path("content").asText().contains("secret"), record.toString());
    }
    SgmException e =
        assertThrows(
            SgmException.class, () -> store(internal, "s1", "{'project':'alpha'}", "mine", null));
    assertEquals(ErrorCode.FORBIDDEN, e.code());
  }

  @Test
  void theServerRecordsThePrincipalAndRefusesAnAgentNotSpokenFor() {
    Caller alpha = principal(Sensitivity.SECRET, "project=alpha:read_write");
    JsonNode stored = store(alpha, "p1", "{'project':'alpha'}", "by p", null);
    assertEquals("p", stored.path("record").path("provenance").path("principal").asText());
    SgmException e =
        assertThrows(
            SgmException.class,
            () ->
                engine.invoke(
                    alpha,
                    "store",
                    Json.parse(
                        "{\"record\":{\"id\":\"p2\",\"type\":\"note\",\"scope\":{\"project\":\"alpha\"},"
                            + "\"provenance\":{\"agent\":\"someone-else\"}}}")));
    assertEquals(ErrorCode.FORBIDDEN, e.code());
    assertEquals("provenance.agent", e.details().get(0).field());
  }

  @Test
  void tokensAuthenticateAndRevokedOnesDoNot() {
    try (SgmRuntime secured = TestRuntimes.open("auth.enabled", "true")) {
      AccessTokens tokens = secured.tokens();
      AccessTokens.Created created =
          tokens.create(
              "ci",
              List.of(Grants.Grant.parse("project=alpha:read_write")),
              Set.of(),
              Sensitivity.SECRET,
              Duration.ofDays(30));
      assertTrue(created.token().startsWith("sgm_"));
      Caller caller =
          secured.service().authenticate("http", "Bearer " + created.token(), "203.0.113.7");
      assertEquals("ci", caller.principal().orElseThrow());
      assertTrue(
          caller.grants().canWrite(dev.sgm.api.Scope.of("project", "alpha", "session", "s")));
      assertFalse(caller.grants().canRead(dev.sgm.api.Scope.of("project", "beta")));
      JsonNode whoami = secured.service().invoke(caller, "whoami", Json.object());
      assertEquals("ci", whoami.path("principal").asText());
      assertFalse(
          tokens.list().toString().contains(created.token().substring(21)), "no secret listed");
      for (String bad :
          new String[] {
            null,
            "",
            "Bearer",
            "Basic abc",
            "Bearer sgm_00",
            "Bearer " + created.token() + "x",
            "Bearer " + otherLastCharacter(created.token())
          }) {
        SgmException e =
            assertThrows(
                SgmException.class,
                () -> secured.service().authenticate("http", bad, "203.0.113.7"),
                bad);
        assertEquals(ErrorCode.UNAUTHENTICATED, e.code());
      }
      tokens.revoke(created.id());
      assertEquals(
          ErrorCode.UNAUTHENTICATED,
          assertThrows(
                  SgmException.class,
                  () ->
                      secured
                          .service()
                          .authenticate("http", "Bearer " + created.token(), "203.0.113.7"))
              .code());
    }
  }

  @Test
  void anAddressThatKeepsFailingIsRefusedForAWhileAndOthersAreNot() {
    try (SgmRuntime secured =
        TestRuntimes.open("auth.enabled", "true", "auth.failure-limit", "5")) {
      AccessTokens.Created created =
          secured
              .tokens()
              .create(
                  "ci",
                  List.of(Grants.Grant.parse("project=alpha:read")),
                  Set.of(),
                  Sensitivity.SECRET,
                  Duration.ofDays(1));
      String good = "Bearer " + created.token();
      String wrong = "Bearer " + otherLastCharacter(created.token());
      SgmService service = secured.service();
      for (int i = 0; i < 5; i++) {
        assertEquals(
            ErrorCode.UNAUTHENTICATED,
            assertThrows(SgmException.class, () -> service.authenticate("http", wrong, "192.0.2.1"))
                .code());
      }
      // Over the limit: refused before the token is looked at, even a good one, with a delay.
      SgmException refused =
          assertThrows(SgmException.class, () -> service.authenticate("http", good, "192.0.2.1"));
      assertEquals(ErrorCode.UNAVAILABLE, refused.code());
      assertEquals(429, refused.httpStatus());
      long seconds = Long.parseLong(refused.retryAfterSeconds().orElseThrow());
      assertTrue(seconds >= 1 && seconds <= 60, "retry after " + seconds);
      assertEquals("authorization", refused.details().get(0).field());
      // Another address is not held back by the first one's failures.
      assertEquals("ci", service.authenticate("http", good, "192.0.2.2").principal().orElseThrow());
    }
  }

  @Test
  void failedAttemptsEndWithTheirWindow() {
    long[] now = {0};
    FailedAttempts attempts = new FailedAttempts(3, Duration.ofSeconds(10), () -> now[0]);
    for (int i = 0; i < 3; i++) {
      attempts.check("192.0.2.9");
      attempts.failed("192.0.2.9", "http");
    }
    SgmException e = assertThrows(SgmException.class, () -> attempts.check("192.0.2.9"));
    assertEquals("10", e.retryAfterSeconds().orElseThrow());
    now[0] = Duration.ofSeconds(4).toNanos();
    assertEquals(
        "6",
        assertThrows(SgmException.class, () -> attempts.check("192.0.2.9"))
            .retryAfterSeconds()
            .orElseThrow());
    now[0] = Duration.ofSeconds(10).toNanos();
    attempts.check("192.0.2.9");
    // A new window counts from zero: two more failures are not yet enough.
    attempts.failed("192.0.2.9", "http");
    attempts.failed("192.0.2.9", "http");
    attempts.check("192.0.2.9");
  }

  /** The token with its last character changed (to one it is not). */
  private static String otherLastCharacter(String token) {
    char last = token.charAt(token.length() - 1);
    return token.substring(0, token.length() - 1) + (last == 'A' ? 'B' : 'A');
  }
}
