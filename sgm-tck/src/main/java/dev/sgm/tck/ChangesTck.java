package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Timestamps;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The change feed of CONTRACT §3.1: every committed write of the followed scopes, in commit order,
 * exactly once across resumes, without content; the scope modes, the types filter, and the errors
 * of bad cursors and limits. Skipped when the implementation does not list {@code changes}.
 */
public abstract class ChangesTck extends TckSupport {

  @BeforeEach
  final void assumeTheFeed() {
    boolean listed = false;
    for (JsonNode op : discovery().path("operations")) {
      listed |= op.path("name").asText().equals("changes");
    }
    Assumptions.assumeTrue(listed, "the implementation does not list the operation 'changes'");
  }

  /** The cursor of the present for {@code scope} (and mode). */
  private String present(ObjectNode scope) {
    ObjectNode request = Json.object();
    request.set("scope", scope);
    JsonNode response = call("changes", request);
    assertEquals(0, response.path("events").size(), "without since there is no backlog");
    assertTrue(response.path("next").isTextual(), "next is a cursor: " + response);
    return response.path("next").asText();
  }

  private JsonNode changes(ObjectNode scope, String since, String extraJson) {
    ObjectNode request = json(extraJson == null ? "{}" : extraJson);
    request.set("scope", scope);
    if (since != null) {
      request.put("since", since);
    }
    return call("changes", request);
  }

  /** Every event after {@code since}, paging by {@code next} with pages of {@code limit}. */
  private List<JsonNode> drain(ObjectNode scope, String since, String extraJson, int limit) {
    List<JsonNode> events = new ArrayList<>();
    String cursor = since;
    for (int round = 0; round < 1000; round++) {
      ObjectNode extra = json(extraJson == null ? "{}" : extraJson);
      extra.put("limit", limit);
      JsonNode page = changes(scope, cursor, Json.write(extra));
      page.path("events").forEach(events::add);
      assertTrue(page.path("next").isTextual(), "every response says where to resume");
      cursor = page.path("next").asText();
      if (page.path("events").size() < limit) {
        return events;
      }
    }
    throw new AssertionError("the feed never ended");
  }

  private static List<String> describe(List<JsonNode> events) {
    List<String> out = new ArrayList<>();
    events.forEach(
        e ->
            out.add(
                e.path("kind").asText()
                    + " "
                    + e.path("id").asText()
                    + " v"
                    + e.path("version").asLong()));
    return out;
  }

  private void delete(ObjectNode scope, String id) {
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("id", id);
    call("delete", request);
  }

  @Test
  @DisplayName("§3.1 without since the feed starts at the present, then sees what commits later")
  @Requirement(rule = "§3.1 changes")
  void changes_startAtThePresent() {
    ObjectNode scope = scope("project", unique("feed"));
    store(record("before", "note", scope));
    String now = present(scope);
    store(record("after", "note", scope));
    assertEquals(List.of("stored after v1"), describe(drain(scope, now, null, 100)));
  }

  @Test
  @DisplayName("§3.1 stores, updates and deletes come in commit order with their kind and version")
  @Requirement(rule = "§3.1 changes")
  void changes_commitOrderAndKinds() {
    ObjectNode scope = scope("project", unique("feed"));
    String since = present(scope);
    store(record("a", "note", scope));
    store(record("b", "fact", scope));
    ObjectNode a2 = record("a", "note", scope);
    a2.put("content", "changed");
    store(a2);
    delete(scope, "b");
    List<JsonNode> events = drain(scope, since, null, 100);
    assertEquals(
        List.of("stored a v1", "stored b v1", "stored a v2", "deleted b v1"), describe(events));
    JsonNode first = events.get(0);
    assertEquals(scope, first.path("scope"));
    assertEquals("note", first.path("type").asText());
    assertEquals("tck-agent", first.path("agent").asText());
    assertTrue(
        Timestamps.tryParse(first.path("at").asText()) != null,
        "at is a date-time: " + first.path("at"));
    assertEquals("fact", events.get(3).path("type").asText());
    Set<String> cursors = new HashSet<>();
    events.forEach(e -> cursors.add(e.path("cursor").asText()));
    assertEquals(4, cursors.size(), "every event has its own cursor");
  }

  @Test
  @DisplayName("§3.1 events carry no content or data")
  @Requirement(rule = "§3.1 changes")
  void changes_eventsCarryNoContent() {
    ObjectNode scope = scope("project", unique("feed"));
    String since = present(scope);
    ObjectNode record = record("secretive", "note", scope);
    record.put("content", "the words themselves");
    record.putObject("metadata").put("k", "v");
    store(record);
    JsonNode event = drain(scope, since, null, 100).get(0);
    assertFalse(event.has("content"), event::toString);
    assertFalse(event.has("data"), event::toString);
    assertFalse(event.has("metadata"), event::toString);
    assertFalse(Json.write(event).contains("the words themselves"), event::toString);
  }

  @Test
  @DisplayName("§3.1 storing the same document again is no event")
  @Requirement(rule = "§3.1 changes")
  void changes_unchangedStoreIsNoEvent() {
    ObjectNode scope = scope("project", unique("feed"));
    String since = present(scope);
    store(record("same", "note", scope));
    store(record("same", "note", scope));
    assertEquals(List.of("stored same v1"), describe(drain(scope, since, null, 100)));
  }

  @Test
  @DisplayName("§3.1 resuming from next or from any event's cursor never misses or repeats")
  @Requirement(rule = "§3.1 changes")
  void changes_resumeNeverMissesOrRepeats() {
    ObjectNode scope = scope("project", unique("feed"));
    String since = present(scope);
    List<String> expected = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      store(record("r" + i, "note", scope));
      expected.add("stored r" + i + " v1");
    }
    List<JsonNode> paged = drain(scope, since, null, 3);
    assertEquals(expected, describe(paged), "pages of 3, resumed by next");
    String fromThird = paged.get(2).path("cursor").asText();
    assertEquals(
        expected.subList(3, 7), describe(drain(scope, fromThird, null, 100)), "after event 3");
    String last = paged.get(6).path("cursor").asText();
    JsonNode caughtUp = changes(scope, last, null);
    assertEquals(0, caughtUp.path("events").size(), "nothing after the last event");
    store(record("late", "note", scope));
    assertEquals(
        List.of("stored late v1"),
        describe(drain(scope, caughtUp.path("next").asText(), null, 100)),
        "an empty response's next resumes too");
  }

  @Test
  @DisplayName("§3.1 a batch store is one event per record, in the batch's order")
  @Requirement(rule = "§3.1 changes")
  void changes_batchStore() {
    ObjectNode scope = scope("project", unique("feed"));
    String since = present(scope);
    ObjectNode request = Json.object();
    request.putArray("records").add(record("x", "note", scope)).add(record("y", "note", scope));
    call("store_batch", request);
    assertEquals(List.of("stored x v1", "stored y v1"), describe(drain(scope, since, null, 100)));
  }

  @Test
  @DisplayName("§3.1 exact is the default: narrower and sibling scopes are not followed")
  @Requirement(rule = "§3.1 changes")
  void changes_exactIsTheDefault() {
    String project = unique("feed");
    ObjectNode scope = scope("project", project);
    String since = present(scope);
    store(record("child", "note", scope("project", project, "session", "s1")));
    store(record("sibling", "note", scope("project", project + "-other")));
    store(record("own", "note", scope));
    assertEquals(List.of("stored own v1"), describe(drain(scope, since, null, 100)));
  }

  @Test
  @DisplayName("§3.1 descendants follows narrower scopes, never siblings")
  @Requirement(rule = "§3.1 changes")
  void changes_descendants() {
    String project = unique("feed");
    ObjectNode scope = scope("project", project);
    String since = present(scope);
    store(record("child", "note", scope("project", project, "session", "s1")));
    store(record("sibling", "note", scope("project", project + "-other")));
    store(record("own", "note", scope));
    List<JsonNode> events = drain(scope, since, "{'scope_mode': 'descendants'}", 100);
    assertEquals(List.of("stored child v1", "stored own v1"), describe(events));
    assertEquals(scope("project", project, "session", "s1"), events.get(0).path("scope"));
  }

  @Test
  @DisplayName("§3.1 types keeps only events of records of those types")
  @Requirement(rule = "§3.1 changes")
  void changes_types() {
    ObjectNode scope = scope("project", unique("feed"));
    String since = present(scope);
    store(record("n", "note", scope));
    store(record("f", "fact", scope));
    store(record("d", "decision", scope));
    assertEquals(
        List.of("stored f v1", "stored d v1"),
        describe(drain(scope, since, "{'types': ['fact', 'decision']}", 100)));
  }

  @Test
  @DisplayName("§5 a tampered or made-up cursor is invalid_request naming since")
  @Requirement(rule = "§5 errors")
  void changes_badCursorsAreInvalid() {
    ObjectNode scope = scope("project", unique("feed"));
    String since = present(scope);
    store(record("a", "note", scope));
    String cursor = drain(scope, since, null, 100).get(0).path("cursor").asText();
    for (String bad : tamperedForms(cursor)) {
      expectError(ErrorCode.INVALID_REQUEST, "since", () -> changes(scope, bad, null));
    }
    expectError(ErrorCode.INVALID_REQUEST, "since", () -> changes(scope, "not a cursor!", null));
    expectError(ErrorCode.INVALID_REQUEST, "since", () -> changes(scope, "bW9yZQ", null));
  }

  /** The cursor with one character changed at the start, the middle and the end. */
  private static List<String> tamperedForms(String cursor) {
    List<String> forms = new ArrayList<>();
    for (int at : new int[] {0, cursor.length() / 2, cursor.length() - 1}) {
      char c = cursor.charAt(at);
      char other = c == 'A' ? 'B' : 'A';
      String tampered = cursor.substring(0, at) + other + cursor.substring(at + 1);
      assertNotEquals(cursor, tampered);
      forms.add(tampered);
    }
    return forms;
  }

  @Test
  @DisplayName(
      "§5 bad limits, scope modes, scopes and unknown fields are invalid_request naming the field")
  @Requirement(rule = "§5 errors")
  void changes_badRequestsNameTheField() {
    ObjectNode scope = scope("project", unique("feed"));
    expectError(ErrorCode.INVALID_REQUEST, "limit", () -> changes(scope, null, "{'limit': 0}"));
    expectError(ErrorCode.INVALID_REQUEST, "limit", () -> changes(scope, null, "{'limit': 1001}"));
    expectError(
        ErrorCode.INVALID_REQUEST,
        "scope_mode",
        () -> changes(scope, null, "{'scope_mode': 'everything'}"));
    expectError(
        ErrorCode.INVALID_REQUEST, "types", () -> changes(scope, null, "{'types': 'note'}"));
    expectError(ErrorCode.INVALID_REQUEST, "scope", () -> call("changes", json("{}")));
    expectError(ErrorCode.INVALID_REQUEST, "cursor", () -> changes(scope, null, "{'cursor': 'x'}"));
  }
}
