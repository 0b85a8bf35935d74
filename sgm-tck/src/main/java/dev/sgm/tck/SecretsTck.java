package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * No credential comes back (security.md, Secrets): with discovery's {@code secrets.on_detect} at
 * {@code redact}, fake credentials of common formats, generated here, stored in content, title,
 * tags and data, are not in what a store answers or a read or a retrieve returns, and a text query
 * for a credential's exact text finds nothing; hard negatives (hashes, ids, versions, prose) come
 * back as written. Skipped when the server does not say it redacts.
 */
public abstract class SecretsTck extends TckSupport {
  private static final String ALNUM =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  private static final SecureRandom RANDOM = new SecureRandom();
  private ObjectNode scope;

  @BeforeEach
  void requireRedaction() {
    String policy = discovery().path("secrets").path("on_detect").asText("");
    Assumptions.assumeTrue(
        policy.equals("redact"), "the implementation does not say it redacts secrets: " + policy);
    scope = scope("project", unique("secrets"));
  }

  private static String random(String alphabet, int length) {
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
    }
    return out.toString();
  }

  /** Fake credentials by kind: the formats, with random bodies, never real ones. */
  private static Map<String, String> fakes() {
    Map<String, String> fakes = new LinkedHashMap<>();
    fakes.put("aws_access_key_id", "AKIA" + random("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16));
    fakes.put("github_token", "ghp_" + random(ALNUM, 36));
    fakes.put("stripe_key", "sk_live_" + random(ALNUM, 24));
    fakes.put("openai_api_key", "sk-proj-" + random(ALNUM, 60));
    fakes.put("google_api_key", "AIza" + random(ALNUM, 35));
    fakes.put("jwt", "eyJhbGciOiJIUzI1NiJ9.eyJ" + random(ALNUM, 24) + "." + random(ALNUM, 43));
    fakes.put("slack_token", "xoxb-" + random("0123456789", 12) + "-" + random(ALNUM, 24));
    return fakes;
  }

  @Test
  void noCredentialComesBackFromAnyRead() {
    Map<String, String> fakes = fakes();
    ObjectNode feed = Json.object();
    feed.set("scope", scope);
    feed.put("limit", 1000);
    // The feed from here on: a first call without a cursor answers where it stands.
    feed.put("since", call("changes", feed).path("next").asText());
    int n = 0;
    for (Map.Entry<String, String> fake : fakes.entrySet()) {
      String id = "secret-" + n++;
      ObjectNode record = record(id, "note", scope);
      record.put("content", "deploy with " + fake.getValue() + " tonight");
      record.put("title", "keys " + fake.getValue());
      record.putArray("tags").add("deploy").add(fake.getValue());
      record.putObject("data").put("env", "KEY=" + fake.getValue());
      JsonNode stored = store(record);
      assertFalse(stored.toString().contains(fake.getValue()), fake.getKey() + ": " + stored);
      JsonNode redactions = stored.path("record").path("metadata").path("sgm_redactions");
      assertEquals(4, redactions.size(), fake.getKey() + ": " + stored);
      assertEquals(fake.getKey(), redactions.get(0).path("kind").asText(), stored.toString());
      JsonNode read = read(scope, id);
      assertFalse(read.toString().contains(fake.getValue()), read.toString());
      assertEquals(
          "deploy with [REDACTED:" + fake.getKey() + "] tonight", read.path("content").asText());
      ObjectNode query = Json.object();
      query.set("scope", scope);
      query.put("text", fake.getValue());
      assertEquals(0, retrieve(query).path("total").asInt(), "found by its text: " + fake);
    }
    ObjectNode all = Json.object();
    all.set("scope", scope);
    JsonNode listed = retrieve(all);
    assertEquals(fakes.size(), listed.path("total").asInt(), listed.toString());
    JsonNode changes = call("changes", feed);
    assertTrue(changes.path("events").size() >= fakes.size(), changes.toString());
    for (String secret : fakes.values()) {
      assertFalse(listed.toString().contains(secret), listed.toString());
      assertFalse(changes.toString().contains(secret), "in the change feed: " + changes);
    }
  }

  @Test
  void textContentIsScannedAndBinaryContentSaysItIsNot() {
    String token = fakes().get("github_token");
    JsonNode text = call("put_content", Json.object().put("content", "key " + token));
    assertFalse(text.toString().contains(token), text.toString());
    assertTrue(text.path("scanned_for_secrets").asBoolean(), text.toString());
    JsonNode binary =
        call(
            "put_content",
            Json.object()
                .put(
                    "content_base64",
                    java.util.Base64.getEncoder()
                        .encodeToString(("key " + token).getBytes(StandardCharsets.UTF_8))));
    assertEquals(
        "false", binary.path("scanned_for_secrets").asText(), "says so: " + binary.toString());
  }

  @Test
  void textThatOnlyLooksLikeACredentialComesBackAsWritten() {
    String[] negatives = {
      "commit " + random("0123456789abcdef", 40) + " fixed it",
      "id " + java.util.UUID.randomUUID() + " and sha256:" + random("0123456789abcdef", 64),
      "upgrade to 2.1.328; reset your password: it must be long",
      "test keys start with sk_test_ and live ones with sk_live_",
      "password=${DB_PASSWORD}"
    };
    for (int i = 0; i < negatives.length; i++) {
      ObjectNode record = record("plain-" + i, "note", scope);
      record.put("content", negatives[i]);
      JsonNode stored = store(record);
      assertTrue(
          stored.path("record").path("metadata").path("sgm_redactions").isMissingNode(),
          stored.toString());
      assertEquals(negatives[i], read(scope, "plain-" + i).path("content").asText());
    }
  }
}
