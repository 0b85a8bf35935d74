package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmService;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A retrieve by a caller who may see only part of what the query covers (a grant narrower than the
 * query's scope, or a clearance below {@code secret}) is answered by storage and the search index
 * with the caller's readable scopes as a filter: complete keyset pages however many records there
 * are, {@code total} of the visible records only, pages that neither repeat nor skip while others
 * write, and no record found by text it withholds.
 */
class RestrictedRetrieveTest {
  /** More visible records than the engine once gathered in memory for such a caller. */
  private static final int MANY = 20_050;

  private static SgmRuntime runtime;
  private static SgmService engine;
  private static final Caller OWNER = Caller.embedded();

  @BeforeAll
  static void open() {
    runtime = TestRuntimes.open();
    engine = runtime.service();
  }

  @AfterAll
  static void close() {
    runtime.close();
  }

  private static ObjectNode record(String id, ObjectNode scope, String content) {
    ObjectNode record = Json.object();
    record.put("id", id);
    record.put("type", "note");
    record.set("scope", scope.deepCopy());
    record.put("content", content);
    record.putObject("provenance").put("agent", "bot");
    return record;
  }

  private static ObjectNode scope(String... keysAndValues) {
    ObjectNode scope = Json.object();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      scope.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return scope;
  }

  private static void store(ObjectNode record) {
    ObjectNode request = Json.object();
    request.set("record", record);
    engine.invoke(OWNER, "store", request);
  }

  private static void storeMany(ObjectNode scope, String prefix, int count, String content) {
    for (int from = 0; from < count; from += 1000) {
      ObjectNode request = Json.object();
      ArrayNode records = request.putArray("records");
      for (int i = from; i < Math.min(count, from + 1000); i++) {
        records.add(record(prefix + i, scope, content));
      }
      engine.invoke(OWNER, "store_batch", request);
    }
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

  private static List<String> ids(JsonNode page) {
    List<String> ids = new ArrayList<>();
    page.path("records").forEach(r -> ids.add(r.path("id").asText()));
    return ids;
  }

  /** Every page of {@code query}, each page's ids in order; asserts each page's total. */
  private static List<String> allPages(Caller caller, ObjectNode query, int total) {
    List<String> seen = new ArrayList<>();
    while (true) {
      JsonNode page = engine.invoke(caller, "retrieve", query);
      assertEquals(total, page.path("total").asInt(), "total counts the visible records only");
      seen.addAll(ids(page));
      if (!page.hasNonNull("next_cursor")) {
        return seen;
      }
      assertEquals(query.path("limit").asInt(), ids(page).size(), "a page is never short");
      query.put("cursor", page.path("next_cursor").asText());
    }
  }

  @Test
  void aSessionGrantOverManyRecordsIsAnsweredInFullKeysetPages() {
    ObjectNode project = scope("project", "big");
    ObjectNode mine = scope("project", "big", "session", "mine");
    storeMany(mine, "m", MANY, "many notes about gardening");
    storeMany(scope("project", "big", "session", "other"), "o", 500, "other notes on gardening");
    store(record("root", project, "the project's own note on gardening"));
    Caller session = principal(Sensitivity.SECRET, "project=big;session=mine:read");

    ObjectNode query = Json.object();
    query.set("scope", project);
    query.put("scope_mode", "descendants");
    query.put("limit", 1000);
    List<String> listed = allPages(session, query, MANY);
    assertEquals(MANY, listed.size());
    assertEquals(MANY, new HashSet<>(listed).size(), "no record twice");
    assertTrue(listed.stream().allMatch(id -> id.startsWith("m")), "only the granted session");

    ObjectNode text = Json.object();
    text.set("scope", project);
    text.put("scope_mode", "descendants");
    text.put("text", "gardening");
    text.put("limit", 1000);
    JsonNode first = engine.invoke(session, "retrieve", text);
    assertEquals(MANY, first.path("total").asInt());
    assertEquals(1000, ids(first).size());
    text.put("cursor", first.path("next_cursor").asText());
    JsonNode second = engine.invoke(session, "retrieve", text);
    Set<String> both = new HashSet<>(ids(first));
    both.addAll(ids(second));
    assertEquals(2000, both.size(), "the second page continues the first");
    assertTrue(both.stream().allMatch(id -> id.startsWith("m")));
  }

  @Test
  void pagingWhileOthersWriteNeitherRepeatsNorSkips() {
    for (String text : new String[] {null, "paging"}) {
      String project = "busy-" + (text == null ? "listed" : "text");
      ObjectNode mine = scope("project", project, "session", "mine");
      ObjectNode other = scope("project", project, "session", "other");
      Set<String> existing = new HashSet<>();
      for (int i = 0; i < 30; i++) {
        store(record("m" + i, mine, "paging words"));
        store(record("o" + i, other, "paging words"));
        existing.add("m" + i);
      }
      Caller session = principal(Sensitivity.SECRET, "project=" + project + ";session=mine:read");
      ObjectNode query = Json.object();
      query.set("scope", scope("project", project));
      query.put("scope_mode", "descendants");
      query.put("limit", 4);
      if (text != null) {
        query.put("text", text);
      }
      List<String> seen = new ArrayList<>();
      int written = 0;
      while (true) {
        JsonNode page = engine.invoke(session, "retrieve", query);
        assertEquals(30, page.path("total").asInt(), "counted when paging began");
        seen.addAll(ids(page));
        if (!page.hasNonNull("next_cursor")) {
          break;
        }
        // Newer records sort first (newest first, and first among equal scores): they would
        // shift an offset cursor.
        store(record("new" + written, mine, "paging words"));
        store(record("newer" + written++, other, "paging words"));
        query.put("cursor", page.path("next_cursor").asText());
      }
      assertEquals(seen.size(), new HashSet<>(seen).size(), "no record twice: " + seen);
      assertEquals(existing, Set.copyOf(seen), "every record that existed, nothing newer");
    }
  }

  @Test
  void aRedactedRecordIsListedButNeverFoundByWhatItWithholds() {
    ObjectNode project = scope("project", "red");
    ObjectNode session = scope("project", "red", "session", "s1");
    store(record("plain", project, "ordinary lunch plans"));
    ObjectNode secret = record("hidden", session, "merger talks with acme");
    secret.put("title", "roadmap");
    secret.putObject("data").put("state", "hush");
    secret.putObject("metadata").put("kind", "plan");
    secret.putObject("sensitivity").put("level", "secret");
    store(secret);
    ObjectNode sibling = record("sibling", scope("project", "red", "session", "s2"), "merger");
    sibling.putObject("data").put("state", "hush");
    store(sibling);
    Caller internal = principal(Sensitivity.INTERNAL, "project=red;session=s1:read");
    Caller wholeProject = principal(Sensitivity.INTERNAL, "project=red:read");

    for (Caller caller : List.of(internal, wholeProject)) {
      String lineage = "{'scope':{'project':'red','session':'s1'},'scope_mode':'lineage'";
      JsonNode byContent = retrieve(caller, lineage + ",'text':'merger'}");
      assertEquals(List.of(), ids(byContent), "withheld text finds nothing: " + byContent);
      assertEquals(0, byContent.path("total").asInt());
      JsonNode byData = retrieve(caller, lineage + ",'filter':{'data.state':'hush'}}");
      assertEquals(List.of(), ids(byData), "withheld data matches nothing: " + byData);
      assertEquals(0, byData.path("total").asInt());

      JsonNode byTitle = retrieve(caller, lineage + ",'text':'roadmap'}");
      assertEquals(List.of("hidden"), ids(byTitle), "the visible title still finds it");
      assertRedacted(byTitle.path("records").get(0));
      JsonNode byMetadata = retrieve(caller, lineage + ",'filter':{'metadata.kind':'plan'}}");
      assertEquals(List.of("hidden"), ids(byMetadata));
      assertRedacted(byMetadata.path("records").get(0));
      JsonNode listed = retrieve(caller, lineage + "}");
      Set<String> visible = caller == internal ? Set.of("hidden") : Set.of("plain", "hidden");
      assertEquals(visible, Set.copyOf(ids(listed)));
      assertEquals(visible.size(), listed.path("total").asInt());
      for (JsonNode record : listed.path("records")) {
        if (record.path("id").asText().equals("hidden")) {
          assertRedacted(record);
        }
      }
    }
    JsonNode owner =
        retrieve(OWNER, "{'scope':{'project':'red'},'scope_mode':'descendants','text':'merger'}");
    assertEquals(Set.of("hidden", "sibling"), Set.copyOf(ids(owner)), "the owner finds both");
  }

  private static void assertRedacted(JsonNode record) {
    assertTrue(record.path("redacted").asBoolean(), record.toString());
    assertFalse(record.has("content"), record.toString());
    assertFalse(record.has("data"), record.toString());
  }

  private static JsonNode retrieve(Caller caller, String query) {
    return engine.invoke(caller, "retrieve", Json.parse(query.replace('\'', '"')));
  }
}
