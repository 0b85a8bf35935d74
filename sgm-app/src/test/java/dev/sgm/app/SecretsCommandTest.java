package dev.sgm.app;

import static dev.sgm.app.CliRun.sgm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sgm secrets scan [--fix]} on a store written while {@code secrets.on-detect=allow}: it
 * names every record and version holding a credential without printing it, and {@code --fix} leaves
 * none anywhere a reader or an export can reach: not in the records, not in their history, not in a
 * deleted record, not in the search index.
 */
class SecretsCommandTest {
  // Fake credentials in published formats, made here so that no real one is in the repository.
  private static final String AWS_KEY = "AKIA" + "QWERTYUIOPASDFGH";
  private static final String GITHUB = "ghp_" + "aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dF3hJ5";

  @TempDir Path dir;

  private CliRun inStore(String policy, String... args) {
    List<String> all = new ArrayList<>(List.of("--data", dir.toString()));
    if (policy != null) {
      all.addAll(List.of("-D", "secrets.on-detect=" + policy));
    }
    all.addAll(List.of(args));
    return sgm(all.toArray(String[]::new));
  }

  private void store(String json) {
    CliRun stored = inStore("allow", "store", json);
    assertEquals(0, stored.code(), stored.err());
  }

  @Test
  void aScanNamesWhatHoldsSecretsAndAFixLeavesNoneInRecordsHistoryOrIndex() throws Exception {
    store(
        "{\"id\":\"deploy\",\"type\":\"note\",\"scope\":{\"project\":\"sec\"},"
            + "\"content\":\"staging key "
            + AWS_KEY
            + "\",\"provenance\":{\"agent\":\"a\"}}");
    // A record whose older version held a token that its latest no longer does.
    store(
        "{\"id\":\"ci\",\"type\":\"note\",\"scope\":{\"project\":\"sec\"},"
            + "\"content\":\"push with "
            + GITHUB
            + "\",\"provenance\":{\"agent\":\"a\"}}");
    store(
        "{\"id\":\"ci\",\"type\":\"note\",\"scope\":{\"project\":\"sec\"},"
            + "\"content\":\"push with the deploy token\",\"provenance\":{\"agent\":\"a\"}}");
    // A deleted record that held one.
    store(
        "{\"id\":\"gone\",\"type\":\"note\",\"scope\":{\"project\":\"sec\"},"
            + "\"content\":\"old key "
            + AWS_KEY
            + "\",\"provenance\":{\"agent\":\"b\"}}");
    assertEquals(0, inStore(null, "delete", "--scope", "project=sec", "--id", "gone").code());
    store(
        "{\"id\":\"plain\",\"type\":\"note\",\"scope\":{\"project\":\"sec\"},"
            + "\"content\":\"commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 is fine\","
            + "\"provenance\":{\"agent\":\"a\"}}");

    CliRun scan = inStore(null, "secrets", "scan");
    assertEquals(1, scan.code(), scan.out() + scan.err());
    assertFalse(scan.out().contains(AWS_KEY) || scan.err().contains(AWS_KEY), scan.out());
    assertFalse(scan.out().contains(GITHUB), scan.out());
    assertTrue(
        scan.out().contains("live project=sec/deploy v1 content aws_access_key_id at 12"),
        scan.out());
    assertTrue(scan.out().contains("history project=sec/ci v1 content github_token"), scan.out());
    assertTrue(scan.out().contains("/gone "), scan.out());
    assertFalse(scan.out().contains("plain"), "a git hash is no secret: " + scan.out());

    CliRun json = inStore(null, "secrets", "scan", "--json");
    JsonNode findings = Json.parse(json.out());
    assertTrue(findings.size() >= 4, json.out());

    CliRun fix = inStore(null, "secrets", "scan", "--fix");
    assertEquals(0, fix.code(), fix.out() + fix.err());
    assertTrue(fix.err().contains("redacted"), fix.err());

    CliRun again = inStore(null, "secrets", "scan");
    assertEquals(0, again.code(), again.out() + again.err());
    assertEquals("", again.out());

    CliRun read = inStore(null, "read", "--scope", "project=sec", "--id", "deploy");
    assertTrue(read.out().contains("[REDACTED:aws_access_key_id]"), read.out());
    assertTrue(read.out().contains("sgm_redactions"), read.out());
    for (String id : List.of("deploy", "ci", "gone")) {
      CliRun versions =
          inStore(
              null,
              "call",
              "history.versions",
              "{\"scope\":{\"project\":\"sec\"},\"id\":\"" + id + "\"}");
      assertEquals(0, versions.code(), versions.err());
      assertFalse(
          versions.out().contains(AWS_KEY) || versions.out().contains(GITHUB), versions.out());
    }
    CliRun found = inStore(null, "retrieve", "--scope", "project=sec", "--text", AWS_KEY, "--json");
    assertFalse(found.out().contains("\"deploy\""), found.out());
    Path archive = dir.resolve("all.jsonl");
    CliRun exported = inStore(null, "export", "--all", "--out", archive.toString());
    assertEquals(0, exported.code(), exported.err());
    String everything = Files.readString(archive);
    assertFalse(
        everything.contains(AWS_KEY) || everything.contains(GITHUB), "the export holds none");
    assertTrue(everything.contains("push with the deploy token"), "the rest is as it was");
  }

  @Test
  void anArchiveImportIsScannedLikeAnyWrite() throws Exception {
    store(
        "{\"id\":\"deploy\",\"type\":\"note\",\"scope\":{\"project\":\"sec\"},"
            + "\"content\":\"staging key "
            + AWS_KEY
            + "\",\"provenance\":{\"agent\":\"a\"}}");
    store(
        "{\"id\":\"deploy\",\"type\":\"note\",\"scope\":{\"project\":\"sec\"},"
            + "\"content\":\"staging key rotated\",\"provenance\":{\"agent\":\"a\"}}");
    CliRun put = inStore("allow", "put-content", "token " + GITHUB);
    assertEquals(0, put.code(), put.err());
    CliRun contentScan = inStore(null, "secrets", "scan", "--fix");
    assertEquals(1, contentScan.code(), "content by hash is reported and left: " + contentScan);
    assertTrue(
        contentScan.out().contains("content ") && contentScan.out().contains("github_token"),
        contentScan.out());
    assertFalse(contentScan.out().contains(GITHUB), contentScan.out());
    Path archive = dir.resolve("all.jsonl");
    assertEquals(0, inStore(null, "export", "--all", "--out", archive.toString()).code());
    String exported = Files.readString(archive);
    assertFalse(exported.contains(AWS_KEY), "the fix redacted the record and its history");
    assertTrue(
        exported.contains(
            java.util.Base64.getEncoder().encodeToString(("token " + GITHUB).getBytes())),
        "content was left as it was");

    Path refused = dir.resolve("refused");
    CliRun rejected =
        sgm(
            "--data",
            refused.toString(),
            "-D",
            "secrets.on-detect=reject",
            "import",
            archive.toString());
    assertEquals(2, rejected.code(), rejected.err());
    assertTrue(
        rejected.err().contains("line ") && rejected.err().contains("holds a credential"),
        rejected.err());
    CliRun nothing =
        sgm("--data", refused.toString(), "retrieve", "--scope", "project=sec", "--json");
    assertEquals(
        0, Json.parse(nothing.out()).path("total").asLong(), "a refused import writes nothing");

    Path redacted = dir.resolve("redacted");
    CliRun imported = sgm("--data", redacted.toString(), "import", archive.toString());
    assertEquals(0, imported.code(), imported.err());
    Path again = dir.resolve("again.jsonl");
    assertEquals(
        0, sgm("--data", redacted.toString(), "export", "--all", "--out", again.toString()).code());
    String copied = Files.readString(again);
    assertFalse(copied.contains(AWS_KEY), copied);
    assertFalse(
        copied.contains(
            java.util.Base64.getEncoder().encodeToString(("token " + GITHUB).getBytes())),
        "text content is stored redacted");
    assertTrue(copied.contains("staging key rotated"), "the rest is copied as it was");
  }
}
