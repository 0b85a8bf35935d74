package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import org.junit.jupiter.api.Test;

/**
 * The secrets policy on the engine's write paths: a credential is redacted before it is stored or
 * indexed (the default), refused (reject), or kept (allow), and discovery says which is in force.
 */
class SecretPolicyTest {
  private static final Caller CALLER = Caller.embedded();

  /** A fake GitHub token, made here: the format, not a real one. */
  private static final String TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0".repeat(2).substring(0, 36);

  private static JsonNode call(SgmRuntime sgm, String operation, String json) {
    return sgm.service().invoke(CALLER, operation, Json.parse(json.replace('\'', '"')));
  }

  private static String note(String id, String content) {
    return "{'record':{'id':'"
        + id
        + "','type':'note','scope':{'project':'sec'},'provenance':{'agent':'a'},'content':'"
        + content
        + "','data':{'env':'GITHUB_TOKEN="
        + TOKEN
        + "'}}}";
  }

  @Test
  void byDefaultACredentialIsRedactedBeforeItIsStoredOrIndexed() {
    try (SgmRuntime sgm = TestRuntimes.open()) {
      JsonNode stored = call(sgm, "store", note("n1", "push with " + TOKEN + " today"));
      JsonNode redactions = stored.path("record").path("metadata").path("sgm_redactions");
      assertEquals(2, redactions.size(), stored.toString());
      assertEquals("github_token", redactions.get(0).path("kind").asText());
      assertEquals("content", redactions.get(0).path("field").asText());
      assertEquals(10, redactions.get(0).path("position").asInt());
      assertEquals("data.env", redactions.get(1).path("field").asText());
      assertFalse(stored.toString().contains(TOKEN), stored.toString());

      JsonNode read = call(sgm, "read", "{'scope':{'project':'sec'},'id':'n1'}");
      assertEquals(
          "push with [REDACTED:github_token] today", read.path("record").path("content").asText());
      assertFalse(read.toString().contains(TOKEN), read.toString());
      JsonNode found = call(sgm, "retrieve", "{'scope':{'project':'sec'},'text':'" + TOKEN + "'}");
      assertEquals(0, found.path("total").asInt(), found.toString());
      assertEquals(
          1,
          call(sgm, "retrieve", "{'scope':{'project':'sec'},'text':'push today'}")
              .path("total")
              .asInt());

      JsonNode again = call(sgm, "store", note("n1", "push with " + TOKEN + " today"));
      assertFalse(again.path("changed").asBoolean(), "storing it again changes nothing: " + again);

      // Text content is redacted before it is hashed and kept: its address is the redacted text's.
      JsonNode content = call(sgm, "put_content", "{'content':'key " + TOKEN + "'}");
      String redactedHash = RecordIndexer.sha256("key [REDACTED:github_token]".getBytes());
      assertTrue(content.toString().contains(redactedHash), content.toString());
      assertTrue(content.path("scanned_for_secrets").asBoolean(), content.toString());
      JsonNode binary =
          call(
              sgm,
              "put_content",
              "{'content_base64':'"
                  + java.util.Base64.getEncoder().encodeToString(("key " + TOKEN).getBytes())
                  + "'}");
      assertFalse(
          binary.path("scanned_for_secrets").asBoolean(true),
          "binary content is not scanned, and says so: " + binary);

      JsonNode discovery = call(sgm, "discover", "{}");
      assertEquals("redact", discovery.path("secrets").path("on_detect").asText());
      assertTrue(discovery.path("secrets").path("detectors").toString().contains("github_token"));
    }
  }

  @Test
  void rejectRefusesTheWriteNamingTheFieldAndTheKindAndStoresNothing() {
    try (SgmRuntime sgm = TestRuntimes.open(ConfigLoader.SECRETS_ON_DETECT, "reject")) {
      SgmException refused =
          assertThrows(SgmException.class, () -> call(sgm, "store", note("n1", "plain words")));
      assertEquals(ErrorCode.INVALID_RECORD, refused.code());
      assertTrue(
          refused.getMessage().startsWith("data.env: holds a credential (github_token)"),
          refused.getMessage());
      assertFalse(refused.getMessage().contains(TOKEN));
      SgmException missing =
          assertThrows(
              SgmException.class, () -> call(sgm, "read", "{'scope':{'project':'sec'},'id':'n1'}"));
      assertEquals(ErrorCode.NOT_FOUND, missing.code());
      assertEquals(
          "reject", call(sgm, "discover", "{}").path("secrets").path("on_detect").asText());
    }
  }

  @Test
  void allowKeepsWhatWasWrittenAndABadPolicyStopsStartUpNamingTheKey() {
    try (SgmRuntime sgm = TestRuntimes.open(ConfigLoader.SECRETS_ON_DETECT, "allow")) {
      call(sgm, "store", note("n1", "push with " + TOKEN));
      assertTrue(
          call(sgm, "read", "{'scope':{'project':'sec'},'id':'n1'}").toString().contains(TOKEN));
    }
    SgmException bad =
        assertThrows(
            SgmException.class,
            () -> TestRuntimes.open(ConfigLoader.SECRETS_ON_DETECT, "shred").close());
    assertTrue(bad.getMessage().contains(ConfigLoader.SECRETS_ON_DETECT), bad.getMessage());
  }
}
