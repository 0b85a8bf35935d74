package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The scanner against fake credentials in every format it knows, generated here (never real ones),
 * and against text that looks like them and is not: hashes, ids, encodings, prose.
 */
class SecretScannerTest {
  private static final String UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  private static final String LOWER = "abcdefghijklmnopqrstuvwxyz";
  private static final String DIGITS = "0123456789";
  private static final String ALNUM = UPPER + LOWER + DIGITS;
  private static final String BASE64 = ALNUM + "+/";
  private final Random random = new SecureRandom();

  private String random(String alphabet, int length) {
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return out.toString();
  }

  /** A fake credential of each kind, as it would appear in text an agent pastes. */
  private Map<String, String> fakes() {
    Map<String, String> fakes = new LinkedHashMap<>();
    fakes.put("aws_access_key_id", "AKIA" + random(UPPER + "234567", 16));
    // The rule wants upper case, lower case and a digit (a random 40 lacks a digit 1 time in 600).
    fakes.put("aws_secret_access_key", "aws secret " + random(BASE64, 37) + "9Zz");
    fakes.put("github_token", "ghp_" + random(ALNUM, 36));
    fakes.put("gitlab_token", "glpat-" + random(ALNUM, 20));
    fakes.put("npm_token", "npm_" + random(ALNUM, 36));
    fakes.put("pypi_token", "pypi-AgEIcHlwaS5vcmc" + random(ALNUM, 60));
    fakes.put("slack_token", "xoxb-" + random(DIGITS, 12) + "-" + random(ALNUM, 24));
    fakes.put(
        "slack_webhook",
        "https://hooks.slack.com/services/T"
            + random(UPPER + DIGITS, 8)
            + "/B"
            + random(UPPER + DIGITS, 8)
            + "/"
            + random(ALNUM, 24));
    fakes.put("stripe_key", "sk_live_" + random(ALNUM, 24));
    fakes.put("anthropic_api_key", "sk-ant-api03-" + random(ALNUM + "-_", 90));
    fakes.put("openai_api_key", "sk-proj-" + random(ALNUM + "-_", 60));
    fakes.put("google_api_key", "AIza" + random(ALNUM, 35));
    fakes.put(
        "jwt", "eyJhbGciOiJIUzI1NiJ9.eyJ" + random(ALNUM, 30) + "." + random(ALNUM + "-_", 43));
    fakes.put(
        "azure_storage_key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
            + random(BASE64, 86)
            + "==;EndpointSuffix=core.windows.net");
    fakes.put("url_password", "postgres://app:" + random(ALNUM, 16) + "@db.internal:5432/app");
    fakes.put(
        "authorization_header",
        "curl -H 'Authorization: Bearer " + random(ALNUM, 40) + "' https://api.example.com");
    fakes.put("assigned_secret", "DB_PASSWORD=" + random(ALNUM + "!#%", 20));
    fakes.put(
        "private_key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + random(BASE64, 64)
            + "\n"
            + random(BASE64, 64)
            + "\n-----END OPENSSH PRIVATE KEY-----");
    return fakes;
  }

  private static String secretPart(String kind, String text) {
    return switch (kind) {
      case "aws_secret_access_key" -> text.substring("aws secret ".length());
      case "azure_storage_key" -> text.replaceAll(".*AccountKey=([^;]+);.*", "$1");
      case "url_password" -> text.replaceAll(".*://app:([^@]+)@.*", "$1");
      case "authorization_header" -> text.replaceAll(".*Bearer ([^']+)'.*", "$1");
      case "assigned_secret" -> text.substring("DB_PASSWORD=".length());
      default -> text;
    };
  }

  @Test
  void everyKindIsFoundAndRedactedAndNoneOfItsTextIsLeft() {
    for (int round = 0; round < 20; round++) {
      for (Map.Entry<String, String> fake : fakes().entrySet()) {
        String kind = fake.getKey();
        String text = "Notes from the deploy: " + fake.getValue() + " (do not share)";
        ObjectNode record = Json.object().put("content", text);
        List<SecretScanner.Finding> found = SecretScanner.BUILT_IN.redact(record);
        assertEquals(1, found.size(), kind + " in " + text + ": " + found);
        assertEquals(kind, found.get(0).kind(), text);
        assertEquals("content", found.get(0).field());
        String redacted = record.path("content").asText();
        String secret = secretPart(kind, fake.getValue());
        assertFalse(redacted.contains(secret), kind + " left in " + redacted);
        assertTrue(redacted.contains("[REDACTED:" + kind + "]"), redacted);
        assertTrue(redacted.startsWith("Notes from the deploy: "), redacted);
        assertTrue(redacted.endsWith(" (do not share)"), redacted);
      }
    }
  }

  @Test
  void theIssuesExampleLosesBothKeys() {
    ObjectNode record =
        Json.object()
            .put(
                "content",
                "deploy key for staging: AKIAIOSFODNN7EXAMPLE secret"
                    + " wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    List<SecretScanner.Finding> found = SecretScanner.BUILT_IN.redact(record);
    assertEquals(
        List.of("aws_access_key_id", "aws_secret_access_key"),
        found.stream().map(SecretScanner.Finding::kind).toList());
    assertEquals(
        "deploy key for staging: [REDACTED:aws_access_key_id] secret"
            + " [REDACTED:aws_secret_access_key]",
        record.path("content").asText());
  }

  @Test
  void everyTextFieldIsScannedAndFindingsNameTheirField() {
    String token = "ghp_" + random(ALNUM, 36);
    ObjectNode record = Json.object();
    record.put("title", "token " + token);
    record.putArray("tags").add("ok").add(token);
    record.putObject("data").putArray("steps").addObject().put("cmd", "export T=" + token);
    record.putObject("metadata").put("note", token);
    List<String> fields =
        SecretScanner.BUILT_IN.redact(record).stream().map(SecretScanner.Finding::field).toList();
    assertEquals(List.of("title", "tags[1]", "data.steps[0].cmd", "metadata.note"), fields);
    assertFalse(record.toString().contains(token), record.toString());
  }

  @Test
  void hardNegativesAreLeftAsTheyAre() {
    List<String> negatives = new ArrayList<>();
    negatives.add("commit " + random("0123456789abcdef", 40) + " fixed the build");
    negatives.add("the secret commit " + random("0123456789abcdef", 40) + " on aws");
    negatives.add("sha256:" + random("0123456789abcdef", 64));
    negatives.add("record id " + java.util.UUID.randomUUID());
    negatives.add(
        "encoded: "
            + java.util.Base64.getEncoder()
                .encodeToString("an ordinary sentence about the build cache".getBytes()));
    negatives.add("upgrade to version 2.1.328 or 0.169.0-alpha.12");
    negatives.add("Reset your password: it must be at least twelve characters long.");
    negatives.add("the password field is required; the token expires after an hour");
    negatives.add("Stripe test keys start with sk_test_ and live keys with sk_live_.");
    negatives.add("password=${DB_PASSWORD} and api_key=<your key here> and secret: ********");
    negatives.add("token: [REDACTED:github_token]");
    negatives.add("Caroline went to the LGBTQ support group on 7 May 2023 and felt accepted.");
    negatives.add("postgres://localhost:5432/app and https://example.com/a:b@c");
    negatives.add(
        "-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----");
    for (String text : negatives) {
      ObjectNode record = Json.object().put("content", text);
      assertEquals(List.of(), SecretScanner.BUILT_IN.redact(record), text);
      assertEquals(text, record.path("content").asText());
    }
  }

  @Test
  void aLargeTextOfNearSecretsIsScannedWhole() {
    StringBuilder text = new StringBuilder();
    while (text.length() < 4 << 20) {
      text.append("password: ").append("aaaa ").append("AKIA").append("sk_test_ ").append("eyJ.");
    }
    text.append(" ghp_").append(random(ALNUM, 36));
    List<SecretScanner.Finding> found = SecretScanner.BUILT_IN.scan("content", text.toString());
    assertEquals(List.of("github_token"), found.stream().map(SecretScanner.Finding::kind).toList());
  }
}
