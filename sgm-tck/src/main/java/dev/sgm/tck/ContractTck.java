package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract's rules beyond the seed cases: losslessness, scope modes, store semantics
 * (idempotence, versions, conflicts, batches), deletion, retrieval and paging, references,
 * discovery, and the error codes of invalid input.
 */
public abstract class ContractTck extends TckSupport {

  // ---- §1 lossless

  @Test
  @DisplayName("§1 numbers come back written exactly as sent")
  @Requirement(rule = "§1 lossless")
  void lossless_numbersKeepTheirText() {
    ObjectNode scope = scope("project", unique("lossless"));
    String metadata =
        "{\"one\":1.0,\"big\":12345678901234567890,\"neg_zero\":-0.0,\"exp\":1e5,\"exp2\":2.5E-3,"
            + "\"trailing\":0.1000,\"huge\":123456789012345678901234567890.123456789,\"int\":42,\"neg\":-7}";
    ObjectNode record = record("numbers", "fact", scope);
    record.set("metadata", Json.parse(metadata));
    store(record);
    assertEquals(metadata, Json.write(read(scope, "numbers").path("metadata")));
    assertEquals(
        metadata, Json.write(retrieveIn(scope, null).path("records").get(0).path("metadata")));
  }

  @Test
  @DisplayName("§1 key order is kept at every level")
  @Requirement(rule = "§1 lossless")
  void lossless_keyOrderIsKept() {
    ObjectNode scope = scope("project", unique("lossless"));
    ObjectNode record =
        json(
            "{'zeta': 1, 'type': 'note', 'id': 'order', 'alpha': {'z': 1, 'a': 2, 'm': [{'y': 1, 'b': 2}]}}");
    record.set("scope", scope);
    record.set("provenance", json("{'session': 's', 'agent': 'tck-agent'}"));
    store(record.deepCopy());

    ObjectNode back = read(scope, "order");
    List<String> sent = fieldNames(record);
    List<String> returned = new ArrayList<>(fieldNames(back));
    returned.retainAll(sent);
    assertEquals(sent, returned, "the client's keys in the client's order");
    assertEquals(Json.write(record.get("alpha")), Json.write(back.get("alpha")));
    assertEquals(List.of("session", "agent"), fieldNames(back.get("provenance")).subList(0, 2));
  }

  @Test
  @DisplayName("§1 unicode strings are returned unchanged")
  @Requirement(rule = "§1 lossless")
  void lossless_unicode() {
    ObjectNode scope = scope("project", unique("lossless"), "owner", "Zoë 山田");
    String content = "naïve café — 漢字かな 🚀 e\u0301 \u200d \"quoted\" back\\slash tab\tnewline\n";
    ObjectNode record = record("unicode-ü", "note", scope);
    record.put("content", content);
    record.put("title", "Ünïcödé ✓");
    store(record);
    ObjectNode back = read(scope, "unicode-ü");
    assertEquals(content, back.path("content").asText());
    assertEquals("Ünïcödé ✓", back.path("title").asText());
    assertEquals(scope, back.path("scope"));
  }

  @Test
  @DisplayName("§1 nested metadata, data, annotations, sensitivity and extensions round-trip")
  @Requirement(rule = "§1 lossless")
  void lossless_nestedStructuresAndExtensions() {
    ObjectNode scope = scope("project", unique("lossless"));
    ObjectNode record = record("nested", "task", scope);
    record.set(
        "data",
        json("{'state': 'open', 'depends_on': [], 'deep': {'a': [[1, [2, {'b': null}]], {}]}}"));
    record.set(
        "metadata", json("{'empty': {}, 'list': [true, false, null], 'x': {'y': {'z': 'w'}}}"));
    record.set(
        "annotations",
        json("{'a': [{'kind': 'comment', 'text': 'hi', 'at': {'line': 3}}]}").get("a"));
    record.set("sensitivity", json("{'level': 'internal', 'labels': ['pii']}"));
    record.set("x-extension", json("{'vendor': 'acme', 'values': [1.50, 2]}"));
    record.put("x-flag", false);
    store(record.deepCopy());

    ObjectNode back = read(scope, "nested");
    for (String field :
        List.of("data", "metadata", "annotations", "sensitivity", "x-extension", "x-flag")) {
      assertEquals(Json.write(record.get(field)), Json.write(back.get(field)), field + " intact");
    }
  }

  // ---- §2 scopes

  @Test
  @DisplayName("§2 the same id in two scopes is two records")
  @Requirement(rule = "§2 identity")
  void scope_sameIdInTwoScopesIsTwoRecords() {
    String run = unique("run");
    ObjectNode a = scope("project", "a-" + run);
    ObjectNode b = scope("project", "b-" + run);
    ObjectNode first = record("shared-id", "fact", a);
    first.put("content", "in a");
    ObjectNode second = record("shared-id", "fact", b);
    second.put("content", "in b");
    store(first);
    store(second);
    assertEquals("in a", read(a, "shared-id").path("content").asText());
    assertEquals("in b", read(b, "shared-id").path("content").asText());
  }

  @Test
  @DisplayName("§2 reserved characters in scope values never make two scopes collide")
  @Requirement(rule = "§2 canonical scope")
  void scope_reservedCharactersDoNotCollide() {
    String run = unique("run");
    // Naively joined, both would read "project=x;team=y=z".
    ObjectNode one = scope("project", run + ";team=y", "team", "z");
    ObjectNode two = scope("project", run, "team", "y=z");
    ObjectNode three = scope("project", run + ":/%3B", "team", "z");
    int n = 0;
    for (ObjectNode s : List.of(one, two, three)) {
      ObjectNode r = record("same", "fact", s);
      r.put("content", "scope " + n++);
      store(r);
    }
    assertEquals("scope 0", read(one, "same").path("content").asText());
    assertEquals("scope 1", read(two, "same").path("content").asText());
    assertEquals("scope 2", read(three, "same").path("content").asText());
    assertEquals(1, retrieveIn(three, null).path("total").asLong());
  }

  private ObjectNode[] family(String project) {
    ObjectNode parent = scope("project", project);
    ObjectNode s1 = scope("project", project, "session", "s1");
    ObjectNode s2 = scope("project", project, "session", "s2");
    ObjectNode s1Agent = scope("project", project, "session", "s1", "agent", "a");
    ObjectNode other = scope("project", project + "-other", "session", "s1");
    int i = 0;
    for (ObjectNode s : new ObjectNode[] {parent, s1, s2, s1Agent, other}) {
      store(record("r" + i++, "fact", s));
    }
    return new ObjectNode[] {parent, s1, s2, s1Agent, other};
  }

  @Test
  @DisplayName("§2 descendants: that scope and every narrower one, no siblings")
  @Requirement(rule = "§2 scope modes")
  void scope_descendants() {
    ObjectNode[] f = family(unique("fam"));
    JsonNode result = retrieveIn(f[1], "{'scope_mode': 'descendants'}");
    assertEquals(Set.of("r1", "r3"), new HashSet<>(ids(result)));
    assertEquals(2, result.path("total").asLong());
    JsonNode all = retrieveIn(f[0], "{'scope_mode': 'descendants'}");
    assertEquals(Set.of("r0", "r1", "r2", "r3"), new HashSet<>(ids(all)));
    for (JsonNode r : all.path("records")) {
      assertEquals(
          f[Integer.parseInt(r.path("id").asText().substring(1))], r.path("scope"), "own scope");
    }
  }

  @Test
  @DisplayName("§2 ancestors: that scope and every broader one, no siblings")
  @Requirement(rule = "§2 scope modes")
  void scope_ancestors() {
    ObjectNode[] f = family(unique("fam"));
    assertEquals(
        Set.of("r0", "r1", "r3"),
        new HashSet<>(ids(retrieveIn(f[3], "{'scope_mode': 'ancestors'}"))));
    assertEquals(
        Set.of("r0", "r2"), new HashSet<>(ids(retrieveIn(f[2], "{'scope_mode': 'ancestors'}"))));
  }

  @Test
  @DisplayName("§2 lineage: ancestors and descendants together")
  @Requirement(rule = "§2 scope modes")
  void scope_lineage() {
    ObjectNode[] f = family(unique("fam"));
    assertEquals(
        Set.of("r0", "r1", "r3"),
        new HashSet<>(ids(retrieveIn(f[1], "{'scope_mode': 'lineage'}"))));
  }

  @Test
  @DisplayName("§2 exact is the default: neither broader nor narrower records")
  @Requirement(rule = "§2 scope modes")
  void scope_exactIsTheDefault() {
    ObjectNode[] f = family(unique("fam"));
    assertEquals(List.of("r1"), ids(retrieveIn(f[1], null)));
    assertEquals(List.of("r1"), ids(retrieveIn(f[1], "{'scope_mode': 'exact'}")));
  }

  // ---- §1 store semantics

  @Test
  @DisplayName("§1 server-set fields are filled only when absent")
  @Requirement(rule = "§1 server-set fields")
  void store_serverSetFields() {
    ObjectNode scope = scope("project", unique("store"));
    JsonNode stored = store(record("plain", "fact", scope));
    JsonNode r = stored.path("record");
    assertTrue(stored.path("created").asBoolean());
    assertTrue(stored.path("changed").asBoolean());
    assertEquals(1, r.path("version").asLong());
    Instant created = Timestamps.tryParse(r.path("created_at").asText());
    assertTrue(created != null, "created_at is RFC 3339");
    assertEquals(r.path("created_at"), r.path("provenance").path("created_at"));
    assertTrue(
        Timestamps.tryParse(r.path("updated_at").asText()) != null, "updated_at is RFC 3339");
    assertEquals("0.1.0", r.path("schema_version").asText());
    assertFalse(r.path("provenance").path("origin").asText("").isEmpty(), "provenance.origin set");

    ObjectNode own = record("own", "fact", scope);
    own.put("created_at", "2020-01-02T03:04:05Z");
    own.put("schema_version", "0.1.0");
    ((ObjectNode) own.get("provenance")).put("origin", "my-tool");
    JsonNode kept = storeRecord(own);
    assertEquals(
        "2020-01-02T03:04:05Z", kept.path("created_at").asText(), "client's created_at kept");
    assertEquals(
        "my-tool", kept.path("provenance").path("origin").asText(), "client's origin kept");
  }

  @Test
  @DisplayName("§1 an identical re-store changes nothing: same version, same updated_at")
  @Requirement(rule = "C2")
  void store_identicalRestoreChangesNothing() {
    ObjectNode scope = scope("project", unique("store"));
    ObjectNode record = record("same", "note", scope);
    record.put("content", "x");
    JsonNode first = storeRecord(record.deepCopy());
    JsonNode again = store(record.deepCopy());
    assertFalse(again.path("created").asBoolean());
    assertFalse(again.path("changed").asBoolean());
    assertEquals(1, again.path("record").path("version").asLong());
    assertEquals(first.path("updated_at"), again.path("record").path("updated_at"));
    // The stored document itself is also a valid re-store.
    JsonNode echo = store(first.deepCopy());
    assertFalse(echo.path("changed").asBoolean(), "storing what read returned changes nothing");
  }

  @Test
  @DisplayName("§1 a changed document gets version + 1, a new updated_at and keeps created_at")
  @Requirement(rule = "§1 versions")
  void store_changeIncrementsVersion() throws InterruptedException {
    ObjectNode scope = scope("project", unique("store"));
    ObjectNode record = record("changing", "note", scope);
    record.put("content", "v1");
    JsonNode first = storeRecord(record.deepCopy());
    Thread.sleep(5);
    record.put("content", "v2");
    JsonNode second = store(record.deepCopy());
    JsonNode r = second.path("record");
    assertTrue(second.path("changed").asBoolean());
    assertFalse(second.path("created").asBoolean());
    assertEquals(2, r.path("version").asLong());
    assertEquals(
        first.path("created_at"), r.path("created_at"), "created_at kept from the first store");
    Instant before = Timestamps.tryParse(first.path("updated_at").asText());
    Instant after = Timestamps.tryParse(r.path("updated_at").asText());
    assertTrue(after.isAfter(before), "updated_at moves forward: " + before + " then " + after);
    assertEquals("v2", read(scope, "changing").path("content").asText());
    assertEquals(2, read(scope, "changing").path("version").asLong());
  }

  @Test
  @DisplayName("§1 version is server-managed: a client's version is replaced")
  @Requirement(rule = "§1 versions")
  void store_clientVersionIsReplaced() {
    ObjectNode scope = scope("project", unique("store"));
    ObjectNode record = record("v", "note", scope);
    record.put("version", 7);
    assertEquals(1, storeRecord(record).path("version").asLong());
  }

  @Test
  @DisplayName("§1 if_absent: an existing record is a conflict and stays unchanged")
  @Requirement(rule = "§1 conflicts")
  void store_ifAbsentConflicts() {
    ObjectNode scope = scope("project", unique("store"));
    ObjectNode record = record("once", "note", scope);
    record.put("content", "first");
    store(record.deepCopy());
    record.put("content", "second");
    ObjectNode request = Json.object();
    request.set("record", record);
    request.put("if_absent", true);
    expectError(ErrorCode.CONFLICT, () -> call("store", request));
    assertEquals("first", read(scope, "once").path("content").asText());
  }

  @Test
  @DisplayName("§1 expected_version: a mismatch is a conflict, a match stores")
  @Requirement(rule = "§1 conflicts")
  void store_expectedVersion() {
    ObjectNode scope = scope("project", unique("store"));
    ObjectNode record = record("guarded", "note", scope);
    record.put("content", "v1");
    store(record.deepCopy());
    record.put("content", "v2");
    ObjectNode stale = Json.object();
    stale.set("record", record.deepCopy());
    stale.put("expected_version", 5);
    expectError(ErrorCode.CONFLICT, () -> call("store", stale));
    assertEquals("v1", read(scope, "guarded").path("content").asText());
    ObjectNode fresh = Json.object();
    fresh.set("record", record.deepCopy());
    fresh.put("expected_version", 1);
    assertEquals(2, call("store", fresh).path("record").path("version").asLong());

    ObjectNode missing = Json.object();
    missing.set("record", record("nobody", "note", scope));
    missing.put("expected_version", 1);
    expectError(ErrorCode.CONFLICT, () -> call("store", missing));
  }

  @Test
  @DisplayName("§3 store_batch stores every record and reports each in order")
  @Requirement(rule = "§3 store_batch")
  void batch_storesAll() {
    ObjectNode scope = scope("project", unique("batch"));
    store(record("b1", "note", scope));
    ObjectNode request = Json.object();
    request
        .putArray("records")
        .add(record("b0", "note", scope))
        .add(record("b1", "note", scope))
        .add(record("b2", "fact", scope));
    JsonNode results = call("store_batch", request).path("results");
    assertEquals(3, results.size());
    assertEquals(
        List.of("b0", "b1", "b2"),
        List.of(
            results.get(0).path("id").asText(),
            results.get(1).path("id").asText(),
            results.get(2).path("id").asText()));
    assertTrue(results.get(0).path("created").asBoolean());
    assertFalse(results.get(1).path("created").asBoolean(), "b1 existed");
    assertFalse(results.get(1).path("changed").asBoolean(), "b1 unchanged");
    assertEquals(3, retrieveIn(scope, null).path("total").asLong());
  }

  @Test
  @DisplayName("§3 store_batch is atomic: one invalid record, nothing stored, its index named")
  @Requirement(rule = "§3 store_batch")
  void batch_isAtomic() {
    ObjectNode scope = scope("project", unique("batch"));
    ObjectNode bad = record("bad", "note", scope);
    bad.remove("provenance");
    ObjectNode request = Json.object();
    request
        .putArray("records")
        .add(record("ok0", "note", scope))
        .add(record("ok1", "note", scope))
        .add(bad);
    expectError(ErrorCode.INVALID_RECORD, "records[2]", () -> call("store_batch", request));
    assertEquals(0, retrieveIn(scope, null).path("total").asLong(), "nothing stored");
  }

  @Test
  @DisplayName("§3 store_batch refuses more than 1000 records")
  @Requirement(rule = "§3 store_batch")
  void batch_limit() {
    ObjectNode scope = scope("project", unique("batch"));
    ObjectNode request = Json.object();
    for (int i = 0; i < 1001; i++) {
      request.withArray("records").add(record("r" + i, "note", scope));
    }
    expectError(ErrorCode.INVALID_REQUEST, "records", () -> call("store_batch", request));
    assertEquals(0, retrieveIn(scope, null).path("total").asLong());
  }

  // ---- delete

  @Test
  @DisplayName("§3 a deleted record is neither read nor retrieved")
  @Requirement(rule = "seed lifecycle: delete")
  void delete_hidesTheRecord() {
    ObjectNode scope = scope("project", unique("delete"));
    ObjectNode record = record("gone", "note", scope);
    record.put("content", "findable words");
    store(record);
    store(record("kept", "note", scope));
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("id", "gone");
    JsonNode deleted = call("delete", request);
    assertTrue(deleted.path("deleted").asBoolean());
    assertTrue(deleted.path("soft").isBoolean());
    expectError(ErrorCode.NOT_FOUND, () -> read(scope, "gone"));
    assertEquals(List.of("kept"), ids(retrieveIn(scope, null)));
    assertFalse(
        ids(retrieveIn(scope, "{'text': 'findable'}")).contains("gone"),
        "a deleted record is not found by text");
    expectError(ErrorCode.NOT_FOUND, () -> call("delete", request));
  }

  @Test
  @DisplayName("§3 delete with a stale expected_version is a conflict")
  @Requirement(rule = "§3 delete")
  void delete_expectedVersion() {
    ObjectNode scope = scope("project", unique("delete"));
    store(record("guarded", "note", scope));
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("id", "guarded");
    request.put("expected_version", 3);
    expectError(ErrorCode.CONFLICT, () -> call("delete", request));
    assertEquals("guarded", read(scope, "guarded").path("id").asText());
  }

  // ---- retrieve

  /**
   * Records of types no standard profile owns, so that their data is free-form whatever profiles
   * the implementation runs.
   */
  private ObjectNode library() {
    ObjectNode scope = scope("project", unique("lib"));
    String[][] rows = {
      {
        "a",
        "fact",
        "database,infra",
        "Datastore health",
        "The nightly check of the datastore passed.",
        "open",
        "1"
      },
      {
        "b",
        "idea",
        "database",
        "Keep the datastore",
        "We keep the current datastore and add a health-check.",
        "done",
        "2.0"
      },
      {
        "c",
        "note",
        "infra",
        "Build cache",
        "The build cache lives on the shared disk.",
        "open",
        "3"
      },
      {
        "d",
        "guideline",
        "style",
        "Formatting",
        "Format every file before commit; the datastore schema too.",
        "open",
        "1.0"
      },
    };
    for (String[] row : rows) {
      ObjectNode r = record(row[0], row[1], scope);
      for (String tag : row[2].split(",")) {
        r.withArray("tags").add(tag);
      }
      r.put("title", row[3]);
      r.put("content", row[4]);
      r.set(
          "data",
          json(
              "{'state': '"
                  + row[5]
                  + "', 'priority': "
                  + row[6]
                  + ", 'labels': ['"
                  + row[0]
                  + "', 'all']}"));
      r.set(
          "metadata",
          json("{'source': {'tool': '" + (row[0].equals("a") ? "ci" : "agent") + "'}}"));
      store(r);
    }
    return scope;
  }

  @Test
  @DisplayName("§3 retrieve filters by ids, types, and tags (all and any)")
  @Requirement(rule = "§3 retrieve")
  void retrieve_idsTypesTags() {
    ObjectNode scope = library();
    assertEquals(
        Set.of("a", "c"), new HashSet<>(ids(retrieveIn(scope, "{'ids': ['a', 'c', 'zz']}"))));
    assertEquals(
        Set.of("b", "d"),
        new HashSet<>(ids(retrieveIn(scope, "{'types': ['idea', 'guideline']}"))));
    assertEquals(
        Set.of("a"), new HashSet<>(ids(retrieveIn(scope, "{'tags': ['database', 'infra']}"))));
    assertEquals(
        Set.of("a", "b", "c"),
        new HashSet<>(
            ids(retrieveIn(scope, "{'tags': ['database', 'infra'], 'tags_mode': 'any'}"))));
    assertEquals(2, retrieveIn(scope, "{'tags': ['database']}").path("total").asLong());
  }

  @Test
  @DisplayName("§3 retrieve filters by equality on data.* and metadata.* paths")
  @Requirement(rule = "§3 retrieve filter")
  void retrieve_dataAndMetadataFilters() {
    ObjectNode scope = library();
    assertEquals(
        Set.of("a", "c", "d"),
        new HashSet<>(ids(retrieveIn(scope, "{'filter': {'data.state': 'open'}}"))));
    assertEquals(
        Set.of("a", "d"),
        new HashSet<>(ids(retrieveIn(scope, "{'filter': {'data.priority': 1}}"))),
        "1 equals 1.0");
    assertEquals(
        Set.of("a"),
        new HashSet<>(
            ids(
                retrieveIn(
                    scope, "{'filter': {'metadata.source.tool': 'ci', 'data.state': 'open'}}"))));
    assertEquals(
        0, retrieveIn(scope, "{'filter': {'data.state': 'missing'}}").path("total").asLong());
    assertEquals(
        4,
        retrieveIn(scope, "{'filter': {'data.labels': 'all'}}").path("total").asLong(),
        "arrays");
    assertEquals(List.of("c"), ids(retrieveIn(scope, "{'filter': {'data.labels': 'c'}}")));
    assertEquals(
        0,
        retrieveIn(scope, "{'filter': {'data.priority': '1'}}").path("total").asLong(),
        "a string never equals a number");
  }

  @Test
  @DisplayName("§3 full-text retrieve ranks by relevance: title matches first, more words higher")
  @Requirement(rule = "§3 retrieve text")
  void retrieve_fullTextIsRanked() {
    ObjectNode scope = library();
    JsonNode result = retrieveIn(scope, "{'text': 'Datastore', 'mode': 'text'}");
    assertEquals(3, result.path("total").asLong());
    List<String> ranked = ids(result);
    assertEquals(Set.of("a", "b", "d"), new HashSet<>(ranked));
    assertEquals("d", ranked.get(2), "a content-only match ranks below title matches");
    assertEquals(
        "b",
        ids(retrieveIn(scope, "{'text': 'keep datastore health', 'mode': 'text'}")).get(0),
        "the record with every word ranks first");
    assertEquals(
        "c",
        ids(retrieveIn(scope, "{'text': 'infra cache', 'mode': 'text'}")).get(0),
        "tags are searched too");
  }

  @Test
  @DisplayName("§3 retrieve orders by created_at ascending and filters time ranges")
  @Requirement(rule = "§3 retrieve order")
  void retrieve_orderAndTimeRanges() {
    ObjectNode scope = scope("project", unique("time"));
    String[] times = {"2026-01-01T00:00:00Z", "2026-03-01T00:00:00Z", "2026-02-01T00:00:00Z"};
    for (int i = 0; i < times.length; i++) {
      ObjectNode r = record("t" + i, "note", scope);
      r.put("created_at", times[i]);
      store(r);
    }
    assertEquals(
        List.of("t0", "t2", "t1"),
        ids(retrieveIn(scope, "{'order_by': 'created_at', 'order': 'asc'}")));
    assertEquals(List.of("t1", "t2", "t0"), ids(retrieveIn(scope, "{'order_by': 'created_at'}")));
    assertEquals(
        Set.of("t1", "t2"),
        new HashSet<>(ids(retrieveIn(scope, "{'created_after': '2026-01-15T00:00:00Z'}"))));
    assertEquals(
        List.of("t0"), ids(retrieveIn(scope, "{'created_before': '2026-01-15T00:00:00+01:00'}")));
    assertEquals(
        3,
        retrieveIn(scope, "{'order_by': 'relevance'}").path("total").asLong(),
        "relevance without text is not an error");
  }

  @Test
  @DisplayName("§3 paging: every record exactly once, total of all matches on every page")
  @Requirement(rule = "§3 cursors")
  void paging_visitsEveryRecordOnce() {
    ObjectNode scope = scope("project", unique("page"));
    storeMany(scope, "p", 25);
    List<String> seen = pageThrough(scope, 10, 25, null);
    assertEquals(25, seen.size());
    assertEquals(25, new HashSet<>(seen).size(), "no repeats");
  }

  @Test
  @DisplayName("§3 paging while others insert neither repeats nor skips a record that existed")
  @Requirement(rule = "§3 cursors")
  void paging_stableUnderConcurrentInserts() {
    ObjectNode scope = scope("project", unique("page"));
    Set<String> before = new HashSet<>(storeMany(scope, "old", 30));
    int[] inserted = {0};
    List<String> seen =
        pageThrough(
            scope,
            7,
            -1,
            page -> {
              // Another writer inserts between every page, newest first in the order being paged.
              storeMany(scope, "new" + inserted[0]++ + "-", 5);
            });
    Set<String> oldSeen = new HashSet<>(seen);
    oldSeen.retainAll(before);
    assertEquals(before, oldSeen, "every record that existed when paging began");
    assertEquals(seen.size(), new HashSet<>(seen).size(), "no repeats");
  }

  private List<String> storeMany(ObjectNode scope, String prefix, int n) {
    ObjectNode request = Json.object();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(prefix + i);
      request.withArray("records").add(record(prefix + i, "note", scope));
    }
    call("store_batch", request);
    return ids;
  }

  private List<String> pageThrough(
      ObjectNode scope, int limit, long expectedTotal, Consumer<JsonNode> between) {
    List<String> seen = new ArrayList<>();
    String cursor = null;
    for (int pages = 0; pages < 100; pages++) {
      ObjectNode query = json("{'limit': " + limit + "}");
      query.set("scope", scope);
      if (cursor != null) {
        query.put("cursor", cursor);
      }
      JsonNode page = retrieve(query);
      if (expectedTotal >= 0) {
        assertEquals(expectedTotal, page.path("total").asLong(), "total on every page");
      }
      seen.addAll(ids(page));
      if (!page.hasNonNull("next_cursor")) {
        return seen;
      }
      cursor = page.path("next_cursor").asText();
      if (between != null) {
        between.accept(page);
      }
    }
    throw new AssertionError("paging did not end");
  }

  @Test
  @DisplayName("§3 paging by created_at neither repeats nor skips while every record is updated")
  @Requirement(rule = "§3 cursors", level = Requirement.Level.SHOULD)
  void paging_byCreatedAtIsStableUnderUpdates() {
    ObjectNode scope = scope("project", unique("page"));
    List<String> all = storeMany(scope, "u", 20);
    List<String> seen = new ArrayList<>();
    String cursor = null;
    for (int pages = 0; pages < 10; pages++) {
      ObjectNode query = json("{'limit': 6, 'order_by': 'created_at'}");
      query.set("scope", scope);
      if (cursor != null) {
        query.put("cursor", cursor);
      }
      JsonNode page = retrieve(query);
      seen.addAll(ids(page));
      if (!page.hasNonNull("next_cursor")) {
        break;
      }
      cursor = page.path("next_cursor").asText();
      for (String id : all) {
        ObjectNode changed = record(id, "note", scope);
        changed.put("content", "changed on page " + pages);
        store(changed);
      }
    }
    assertEquals(20, seen.size(), seen::toString);
    assertEquals(new HashSet<>(all), new HashSet<>(seen));
  }

  @Test
  @DisplayName("§3 a cursor from another query, a forged cursor and a limit above 1000 are refused")
  @Requirement(rule = "§3 cursors")
  void paging_badCursorsAndLimits() {
    ObjectNode scope = scope("project", unique("page"));
    storeMany(scope, "p", 3);
    ObjectNode first = json("{'limit': 1}");
    first.set("scope", scope);
    String cursor = retrieve(first).path("next_cursor").asText();
    ObjectNode other = json("{'limit': 1, 'types': ['note']}");
    other.set("scope", scope);
    other.put("cursor", cursor);
    expectError(ErrorCode.INVALID_REQUEST, "cursor", () -> retrieve(other));
    ObjectNode forged = json("{'cursor': 'bm90LWEtY3Vyc29y'}");
    forged.set("scope", scope);
    expectError(ErrorCode.INVALID_REQUEST, "cursor", () -> retrieve(forged));
    ObjectNode big = json("{'limit': 1001}");
    big.set("scope", scope);
    expectError(ErrorCode.INVALID_REQUEST, "limit", () -> retrieve(big));
  }

  // ---- references

  @Test
  @DisplayName("§3 put_content returns a content-hash reference that read resolves")
  @Requirement(rule = "§3 references")
  void references_putContentAndResolve() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        discovery().path("references").path("resolvable").asBoolean(false),
        "the implementation does not resolve references");
    JsonNode reference =
        call("put_content", json("{'content': 'the full body'}")).path("reference");
    assertEquals("content-hash", reference.path("kind").asText());
    assertEquals(
        sha256("the full body".getBytes(StandardCharsets.UTF_8)), reference.path("hash").asText());
    assertEquals(13, reference.path("bytes").asLong());
    ObjectNode scope = scope("project", unique("ref"));
    ObjectNode record = record("with-ref", "note", scope);
    record.put("content", "summary");
    record.set("reference", reference);
    store(record);
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("id", "with-ref");
    request.put("resolve", true);
    assertEquals("the full body", call("read", request).path("content").asText());

    byte[] bytes = {0, 1, 2, (byte) 255};
    JsonNode binary =
        call(
                "put_content",
                json("{'content_base64': '" + Base64.getEncoder().encodeToString(bytes) + "'}"))
            .path("reference");
    assertEquals(4, binary.path("bytes").asLong());
    assertNotEquals(reference.path("hash"), binary.path("hash"));
  }

  @Test
  @DisplayName("§3 an unresolvable reference is said so explicitly, never an empty string")
  @Requirement(rule = "seed: references")
  void references_unresolvableIsExplicit() {
    ObjectNode scope = scope("project", unique("ref"));
    ObjectNode record = record("dangling", "note", scope);
    record.set(
        "reference",
        json(
            "{'kind': 'content-hash', 'hash': '"
                + "0".repeat(64)
                + "', 'encoding': 'utf-8', 'bytes': 1}"));
    store(record);
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("id", "dangling");
    request.put("resolve", true);
    JsonNode response = call("read", request);
    assertTrue(response.path("content").isNull(), "content is null");
    assertFalse(response.path("unresolved").asText("").isBlank(), "a reason is given");
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  // ---- discovery

  @Test
  @DisplayName("§4 discovery declares the scope model, references and limits")
  @Requirement(rule = "§4 discovery")
  void discovery_document() {
    JsonNode d = discovery();
    assertEquals("exact", d.path("scope_model").path("default_mode").asText());
    Set<String> modes = new HashSet<>();
    d.path("scope_model").path("modes").forEach(m -> modes.add(m.asText()));
    assertEquals(Set.of("exact", "descendants", "ancestors", "lineage"), modes);
    assertTrue(d.path("references").path("kinds").isArray());
    assertTrue(d.path("limits").path("max_page_size").asLong() >= 1);
    assertTrue(d.path("supported_versions").isArray());
  }

  @Test
  @DisplayName(
      "§4 accept_versions: a compatible version is accepted, none compatible is unsupported_version")
  @Requirement(rule = "§4 versions")
  void discovery_versionNegotiation() {
    String current = discovery().path("protocol_version").asText();
    JsonNode ok = call("discover", json("{'accept_versions': ['" + current + "', '97.0.0']}"));
    assertEquals(current, ok.path("protocol_version").asText());
    SgmException e =
        expectError(
            ErrorCode.UNSUPPORTED_VERSION,
            () -> call("discover", json("{'accept_versions': ['99.0.0']}")));
    assertTrue(
        e.getMessage().contains(current),
        "the error lists the supported versions: " + e.getMessage());
  }

  // ---- §5 errors

  static Stream<Arguments> invalidRecords() {
    List<Arguments> cases = new ArrayList<>();
    cases.add(invalid("id missing", "id", r -> r.remove("id")));
    cases.add(invalid("id empty", "id", r -> r.put("id", "")));
    cases.add(invalid("id with a space", "id", r -> r.put("id", "a b")));
    cases.add(invalid("id with a control character", "id", r -> r.put("id", "a\u0001b")));
    cases.add(invalid("id of 257 characters", "id", r -> r.put("id", "x".repeat(257))));
    cases.add(invalid("id a number", "id", r -> r.put("id", 5)));
    cases.add(invalid("type missing", "type", r -> r.remove("type")));
    cases.add(invalid("type uppercase", "type", r -> r.put("type", "Fact")));
    cases.add(invalid("type of 65 characters", "type", r -> r.put("type", "a".repeat(65))));
    cases.add(invalid("scope missing", "scope", r -> r.remove("scope")));
    cases.add(invalid("scope empty", "scope", r -> r.putObject("scope")));
    cases.add(invalid("scope not an object", "scope", r -> r.put("scope", "project=x")));
    cases.add(
        invalid(
            "scope with 9 keys",
            "scope",
            r -> {
              ObjectNode s = r.putObject("scope");
              for (int i = 0; i < 9; i++) {
                s.put("k" + i, "v");
              }
            }));
    cases.add(
        invalid("scope key uppercase", "scope", r -> r.putObject("scope").put("Project", "x")));
    cases.add(
        invalid(
            "scope value empty", "scope.project", r -> r.putObject("scope").put("project", "")));
    cases.add(
        invalid(
            "scope value a number", "scope.project", r -> r.putObject("scope").put("project", 3)));
    cases.add(invalid("provenance missing", "provenance", r -> r.remove("provenance")));
    cases.add(
        invalid(
            "provenance without agent",
            "provenance.agent",
            r -> r.putObject("provenance").put("session", "s")));
    cases.add(
        invalid(
            "provenance.agent empty",
            "provenance.agent",
            r -> r.putObject("provenance").put("agent", "")));
    cases.add(
        invalid(
            "provenance.agent a number",
            "provenance.agent",
            r -> r.putObject("provenance").put("agent", 1)));
    cases.add(
        invalid("created_at not RFC 3339", "created_at", r -> r.put("created_at", "yesterday")));
    cases.add(
        invalid(
            "created_at without offset",
            "created_at",
            r -> r.put("created_at", "2026-10-10T18:21:47")));
    cases.add(
        invalid(
            "provenance.created_at invalid",
            "provenance.created_at",
            r -> ((ObjectNode) r.get("provenance")).put("created_at", "2026-13-01T00:00:00Z")));
    cases.add(invalid("tags not an array", "tags", r -> r.put("tags", "a,b")));
    cases.add(invalid("tags with a number", "tags", r -> r.putArray("tags").add("a").add(2)));
    cases.add(invalid("links with an object", "links", r -> r.putArray("links").addObject()));
    cases.add(invalid("metadata an array", "metadata", r -> r.putArray("metadata")));
    cases.add(invalid("data a string", "data", r -> r.put("data", "x")));
    cases.add(invalid("reference a string", "reference", r -> r.put("reference", "sha256:x")));
    cases.add(invalid("annotations an object", "annotations", r -> r.putObject("annotations")));
    cases.add(invalid("version zero", "version", r -> r.put("version", 0)));
    cases.add(invalid("version fractional", "version", r -> r.put("version", 1.5)));
    return cases.stream();
  }

  private static Arguments invalid(String name, String field, Consumer<ObjectNode> breakIt) {
    return Arguments.of(name, field, breakIt);
  }

  @ParameterizedTest(name = "§5 invalid_record naming {1}: {0}")
  @MethodSource("invalidRecords")
  @Requirement(rule = "§5 invalid_record")
  void errors_invalidRecordNamesTheField(String name, String field, Consumer<ObjectNode> breakIt) {
    ObjectNode scope = scope("project", unique("invalid"));
    ObjectNode record = record("victim", "note", scope);
    breakIt.accept(record);
    expectError(ErrorCode.INVALID_RECORD, field, () -> store(record));
    assertEquals(0, retrieveIn(scope, null).path("total").asLong(), "nothing stored");
  }

  static Stream<Arguments> invalidRequests() {
    return Stream.of(
        Arguments.of("retrieve", "{'scope_mode': 'exact'}", "scope"),
        Arguments.of(
            "retrieve", "{'scope': {'project': 'p'}, 'scope_mode': 'everything'}", "scope_mode"),
        Arguments.of("retrieve", "{'scope': {'project': 'p'}, 'limit': 0}", "limit"),
        Arguments.of("retrieve", "{'scope': {'project': 'p'}, 'order_by': 'size'}", "order_by"),
        Arguments.of("retrieve", "{'scope': {'project': 'p'}, 'order': 'up'}", "order"),
        Arguments.of("retrieve", "{'scope': {'project': 'p'}, 'tags_mode': 'some'}", "tags_mode"),
        Arguments.of(
            "retrieve",
            "{'scope': {'project': 'p'}, 'created_after': 'last week'}",
            "created_after"),
        Arguments.of(
            "retrieve", "{'scope': {'project': 'p'}, 'filter': {'state': 'open'}}", "filter.state"),
        Arguments.of("retrieve", "{'scope': {'project': 'p'}, 'tag': ['x']}", "tag"),
        Arguments.of("read", "{'scope': {'project': 'p'}}", "id"),
        Arguments.of("read", "{'id': 'x'}", "scope"),
        Arguments.of(
            "delete",
            "{'scope': {'project': 'p'}, 'id': 'x', 'expected_version': 'one'}",
            "expected_version"),
        Arguments.of("store", "{}", "record"),
        Arguments.of("store_batch", "{'records': []}", "records"),
        Arguments.of("put_content", "{}", "content"),
        Arguments.of("put_content", "{'content_base64': '***'}", "content_base64"));
  }

  @ParameterizedTest(name = "§5 invalid_request naming {2}: {0} {1}")
  @MethodSource("invalidRequests")
  @Requirement(rule = "§5 invalid_request")
  void errors_invalidRequestNamesTheField(String operation, String request, String field) {
    expectError(ErrorCode.INVALID_REQUEST, field, () -> call(operation, json(request)));
  }

  @Test
  @DisplayName("§5 reading a record that does not exist is not_found")
  @Requirement(rule = "§5 not_found")
  void errors_notFound() {
    SgmException e =
        expectError(ErrorCode.NOT_FOUND, () -> read(scope("project", unique("none")), "nothing"));
    assertTrue(
        e.getMessage().contains("nothing"), "the message names the record: " + e.getMessage());
  }

  @Test
  @DisplayName("§5 an operation no active plugin offers is unsupported_capability")
  @Requirement(rule = "§5 unsupported_capability")
  void errors_unknownOperation() {
    expectError(ErrorCode.UNSUPPORTED_CAPABILITY, () -> call("no_such.operation", Json.object()));
  }

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }
}
