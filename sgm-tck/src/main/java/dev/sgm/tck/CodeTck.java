package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The code intelligence profile (CONTRACT §7): symbol, code_reference and diff schemas, diffs'
 * derived files, and the lookups. Skipped, with the reason, when the implementation does not
 * advertise {@code code}.
 */
public abstract class CodeTck extends TckSupport {
  private static final String PATCH =
      "diff --git a/src/Engine.java b/src/Engine.java\\n--- a/src/Engine.java\\n+++ b/src/Engine.java\\n"
          + "@@ -1,2 +1,3 @@\\n class Engine {\\n+  int x;\\n }\\n"
          + "diff --git a/docs/readme.md b/docs/readme.md\\n--- a/docs/readme.md\\n+++ b/docs/readme.md\\n"
          + "@@ -1 +1 @@\\n-old\\n+new\\n";

  private ObjectNode repo;

  @BeforeEach
  void requireCode() {
    assumeCapability("code");
    repo = scope("project", unique("code"));
  }

  private JsonNode typed(String id, String type, String data) {
    ObjectNode record = record(id, type, repo);
    record.set("data", json(data));
    return store(record);
  }

  private JsonNode op(String operation, String request) {
    ObjectNode body = json(request);
    body.set("scope", repo);
    return call(operation, body);
  }

  @Test
  @DisplayName("symbols are found by name, prefix, kind, path and path glob")
  @Requirement(rule = "§7 code.symbols")
  void symbols_lookups() {
    typed(
        "s1",
        "symbol",
        "{'name': 'Engine', 'kind': 'class', 'path': 'src/core/Engine.java', 'language': 'Java', 'range': {'start_line': 10, 'end_line': 90}}");
    typed(
        "s2",
        "symbol",
        "{'name': 'EngineTest', 'kind': 'class', 'path': 'test/core/EngineTest.java'}");
    typed(
        "s3",
        "symbol",
        "{'name': 'store', 'kind': 'method', 'path': 'src/core/Engine.java', 'signature': 'store(Caller, StoreRequest)'}");
    assertEquals(List.of("s1"), idsOf(op("code.symbols", "{'name': 'Engine'}").path("symbols")));
    assertEquals(2, op("code.symbols", "{'prefix': 'Engine'}").path("total").asLong());
    assertEquals(List.of("s3"), idsOf(op("code.symbols", "{'kind': 'method'}").path("symbols")));
    assertEquals(2, op("code.symbols", "{'path': 'src/core/Engine.java'}").path("total").asLong());
    assertEquals(
        List.of("s2"), idsOf(op("code.symbols", "{'path_glob': 'test/**'}").path("symbols")));
  }

  @Test
  @DisplayName("code.references_to lists every reference to a symbol")
  @Requirement(rule = "§7 code.references_to")
  void references_toASymbol() {
    typed(
        "r1",
        "code_reference",
        "{'from': {'path': 'src/a.java', 'line': 3}, 'to': {'symbol': 'Engine'}, 'kind': 'use'}");
    typed(
        "r2",
        "code_reference",
        "{'from': {'path': 'src/b.java', 'line': 9, 'symbol': 'main'}, 'to': {'symbol': 'Engine', 'path': 'src/core/Engine.java'}, 'kind': 'call'}");
    typed(
        "r3",
        "code_reference",
        "{'from': {'path': 'src/c.java'}, 'to': {'symbol': 'Other'}, 'kind': 'import'}");
    JsonNode references = op("code.references_to", "{'symbol': 'Engine'}");
    assertEquals(2, references.path("total").asLong());
    assertEquals(
        List.of("r1", "r2"), idsOf(references.path("references")).stream().sorted().toList());
  }

  @Test
  @DisplayName(
      "a diff's files, hunks and line counts are derived; diffs_touching finds them newest first")
  @Requirement(rule = "§7 code.diffs_touching")
  void diffs_derivedAndFound() {
    JsonNode stored = typed("d1", "diff", "{'patch': '" + PATCH + "'}").path("record").path("data");
    assertEquals(
        List.of("src/Engine.java", "docs/readme.md"),
        List.of(stored.path("files").get(0).asText(), stored.path("files").get(1).asText()));
    assertEquals(2, stored.path("stats").path("hunks").asInt());
    assertEquals(2, stored.path("stats").path("added").asInt());
    assertEquals(1, stored.path("stats").path("removed").asInt());
    typed(
        "d2",
        "diff",
        "{'patch': 'diff --git a/src/Engine.java b/src/Engine.java\\n--- a/src/Engine.java\\n+++ b/src/Engine.java\\n@@ -1 +1 @@\\n-a\\n+b\\n'}");
    assertEquals(
        List.of("d2", "d1"),
        idsOf(op("code.diffs_touching", "{'path': 'src/Engine.java'}").path("diffs")));
    assertEquals(
        List.of("d1"),
        idsOf(op("code.diffs_touching", "{'path_glob': 'docs/*.md'}").path("diffs")));
  }

  @Test
  @DisplayName("a diff's patch may be stored content the record references")
  @Requirement(rule = "§7 diff schema")
  void diffs_patchAsContentReference() {
    ObjectNode upload = json("{}");
    upload.put("content", json("{'p': '" + PATCH + "'}").path("p").asText());
    JsonNode reference = call("put_content", upload).path("reference");
    ObjectNode record = record("d-ref", "diff", repo);
    record.set("data", json("{'head': 'abc123'}"));
    record.set("reference", reference);
    JsonNode stored = store(record).path("record").path("data");
    assertEquals(2, stored.path("stats").path("files").asInt(), stored.toString());
    assertEquals(2, stored.path("stats").path("hunks").asInt());
    assertEquals(
        List.of("d-ref"),
        idsOf(op("code.diffs_touching", "{'path': 'docs/readme.md'}").path("diffs")));

    ObjectNode missing = record("d-missing", "diff", repo);
    missing.set("data", json("{}"));
    ObjectNode absent = reference.deepCopy();
    absent.put("hash", "0".repeat(64));
    missing.set("reference", absent);
    expectError(ErrorCode.INVALID_RECORD, "reference", () -> store(missing));
  }

  @Test
  @DisplayName("a malformed patch or a bad field is invalid_record naming where")
  @Requirement(rule = "§7 code schemas")
  void schemas_badInputIsNamed() {
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.patch",
        () ->
            typed(
                "bad",
                "diff",
                "{'patch': 'diff --git a/x b/x\\n--- a/x\\n+++ b/x\\n@@ -1,3 +1,3 @@\\n-a\\n'}"));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.patch",
        () -> typed("bad", "diff", "{'patch': 'this is not a diff'}"));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.name",
        () -> typed("bad", "symbol", "{'kind': 'class', 'path': 'a'}"));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.kind",
        () ->
            typed(
                "bad",
                "code_reference",
                "{'from': {'path': 'a'}, 'to': {'symbol': 'b'}, 'kind': 'likes'}"));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.range.end_line",
        () ->
            typed(
                "bad",
                "symbol",
                "{'name': 'n', 'kind': 'k', 'path': 'p', 'range': {'start_line': 5, 'end_line': 2}}"));
    assertEquals(0, retrieveIn(repo, null).path("total").asLong());
  }

  @Test
  @DisplayName("discovery lists the code profile and its features")
  @Requirement(rule = "§4 discovery")
  void discovery_listsCode() {
    List<String> features = new ArrayList<>();
    discovery()
        .path("profiles")
        .path("code")
        .path("features")
        .forEach(f -> features.add(f.asText()));
    assertEquals(List.of("symbols", "references", "diffs"), features);
  }
}
