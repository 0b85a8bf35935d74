package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's rules of the operations (§3): batches, deletion, retrieval and its filters,
 * ranking and order, paging with cursors, and references to content.
 *
 * <p>A section of {@link ContractTck}, which is how to run it: the sections extend one another in
 * the contract's order, so only the kit extends this class.
 */
public abstract class ContractOperationsTck extends ContractScopeTck {
  ContractOperationsTck() {}

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
}
