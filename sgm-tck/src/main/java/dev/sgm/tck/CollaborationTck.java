package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The collaboration profile (CONTRACT §7): its data schemas and the operations agents coordinate
 * with. Skipped, with the reason, when the implementation does not advertise {@code collaboration}.
 */
public abstract class CollaborationTck extends TckSupport {
  private ObjectNode project;

  @BeforeEach
  void requireCollaboration() {
    assumeCapability("collaboration");
    project = scope("project", unique("collab"));
  }

  private ObjectNode typed(String id, String type, ObjectNode scope, String agent, String data) {
    ObjectNode record = record(id, type, scope);
    ((ObjectNode) record.get("provenance")).put("agent", agent);
    record.set("data", json(data));
    return record;
  }

  private ObjectNode at(ObjectNode scope, String id) {
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("id", id);
    return request;
  }

  private JsonNode data(ObjectNode scope, String id) {
    return read(scope, id).path("data");
  }

  @Test
  @DisplayName("the profile owns its types' data: a bad field is invalid_record naming it")
  @Requirement(rule = "§7 collaboration schemas")
  void schemas_badFieldsAreNamed() {
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.status",
        () -> store(typed("d", "decision", project, "a", "{'status': 'maybe', 'rationale': 'r'}")));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.rationale",
        () -> store(typed("d", "decision", project, "a", "{'status': 'proposed'}")));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.severity",
        () -> store(typed("r", "rule", project, "a", "{'statement': 's', 'severity': 'always'}")));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.progress",
        () ->
            store(
                typed(
                    "s",
                    "status",
                    project,
                    "a",
                    "{'state': 'x', 'progress': 2, 'as_of': '2026-01-01T00:00:00Z'}")));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.state",
        () -> store(typed("t", "task", project, "a", "{'state': 'someday'}")));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.summary",
        () -> store(typed("h", "handoff", project, "a", "{'from_agent': 'a', 'state': 'open'}")));
    assertEquals(0, retrieveIn(project, null).path("total").asLong(), "nothing stored");
  }

  @Test
  @DisplayName(
      "a record of a profile's type without data is stored as sent; the operations take defaults")
  @Requirement(rule = "§7 records without data")
  void records_withoutDataAreStoredAndTakeDefaults() {
    ObjectNode decision = record("d0", "decision", project);
    decision.put("content", "Use PostgreSQL for the billing service.");
    JsonNode stored = store(decision).path("record");
    assertEquals("decision", stored.path("type").asText());
    assertFalse(stored.has("data"), "stored as sent: " + stored);
    store(record("t0", "task", project));
    ObjectNode inProject = Json.object();
    inProject.set("scope", project);
    assertEquals(List.of("t0"), idsOf(call("tasks.ready", inProject).path("tasks")));
    JsonNode claimed = call("tasks.claim", at(project, "t0").put("agent", "alice"));
    assertEquals("in_progress", claimed.path("record").path("data").path("state").asText());
    assertEquals("alice", claimed.path("record").path("data").path("assignee").asText());
  }

  @Test
  @DisplayName("accepting a decision that supersedes others marks them superseded, atomically")
  @Requirement(rule = "§7 decisions")
  void decisions_supersede() {
    store(typed("old", "decision", project, "a", "{'status': 'accepted', 'rationale': 'first'}"));
    store(
        typed(
            "new",
            "decision",
            project,
            "a",
            "{'status': 'proposed', 'rationale': 'second', 'supersedes': ['old']}"));
    assertEquals(
        "accepted",
        data(project, "old").path("status").asText(),
        "a proposal supersedes nothing yet");
    store(
        typed(
            "new",
            "decision",
            project,
            "a",
            "{'status': 'accepted', 'rationale': 'second', 'supersedes': ['old']}"));
    assertEquals("superseded", data(project, "old").path("status").asText());
    assertEquals("new", data(project, "old").path("superseded_by").asText());
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.supersedes",
        () ->
            store(
                typed(
                    "newer",
                    "decision",
                    project,
                    "a",
                    "{'status': 'accepted', 'rationale': 'x', 'supersedes': ['ghost']}")));
    expectError(ErrorCode.NOT_FOUND, () -> read(project, "newer"));
  }

  @Test
  @DisplayName("rules.active: active rules of the scope and its broader scopes, by severity")
  @Requirement(rule = "§7 rules.active")
  void rules_activeIncludingAncestors() {
    ObjectNode session = project.deepCopy().put("session", "s1");
    ObjectNode sibling = project.deepCopy().put("session", "s2");
    store(
        typed(
            "may-p",
            "rule",
            project,
            "a",
            "{'statement': 'prefer small commits', 'severity': 'may'}"));
    store(
        typed(
            "must-p",
            "rule",
            project,
            "a",
            "{'statement': 'never push to main', 'severity': 'must'}"));
    store(
        typed(
            "should-s",
            "rule",
            session,
            "a",
            "{'statement': 'write tests first', 'severity': 'should'}"));
    store(
        typed(
            "off",
            "rule",
            project,
            "a",
            "{'statement': 'old rule', 'severity': 'must', 'active': false}"));
    store(typed("other", "rule", sibling, "a", "{'statement': 'not here', 'severity': 'must'}"));
    JsonNode rules = call("rules.active", Json.object().set("scope", session)).path("rules");
    assertEquals(List.of("must-p", "should-s", "may-p"), idsOf(rules));
  }

  @Test
  @DisplayName("status.current: the latest status of each agent")
  @Requirement(rule = "§7 status.current")
  void status_latestPerAgent() {
    store(
        typed(
            "a1",
            "status",
            project,
            "alice",
            "{'state': 'coding', 'as_of': '2026-01-01T10:00:00Z'}"));
    store(
        typed(
            "a2",
            "status",
            project,
            "alice",
            "{'state': 'testing', 'as_of': '2026-01-01T11:00:00Z'}"));
    store(
        typed(
            "b1",
            "status",
            project,
            "bob",
            "{'state': 'reviewing', 'progress': 0.5, 'as_of': '2026-01-01T09:00:00Z'}"));
    JsonNode statuses =
        call("status.current", Json.object().set("scope", project)).path("statuses");
    assertEquals(2, statuses.size());
    List<String> ids = idsOf(statuses);
    assertTrue(ids.contains("a2") && ids.contains("b1"), ids.toString());
  }

  @Test
  @DisplayName("tasks.claim is exclusive: another agent's claim is a conflict")
  @Requirement(rule = "§7 tasks.claim")
  void tasks_claim() {
    store(typed("t1", "task", project, "a", "{'state': 'open'}"));
    JsonNode claimed = call("tasks.claim", at(project, "t1").put("agent", "alice"));
    assertEquals("alice", claimed.path("record").path("data").path("assignee").asText());
    assertEquals("in_progress", claimed.path("record").path("data").path("state").asText());
    expectError(
        ErrorCode.CONFLICT, () -> call("tasks.claim", at(project, "t1").put("agent", "bob")));
    call(
        "tasks.claim",
        at(project, "t1").put("agent", "alice")); // claiming one's own task again is fine
    expectError(
        ErrorCode.NOT_FOUND, () -> call("tasks.claim", at(project, "none").put("agent", "bob")));
  }

  @Test
  @DisplayName("tasks.transition allows only legal state changes")
  @Requirement(rule = "§7 tasks.transition")
  void tasks_transition() {
    store(typed("t1", "task", project, "a", "{'state': 'open'}"));
    call("tasks.transition", at(project, "t1").put("to", "in_progress"));
    call("tasks.transition", at(project, "t1").put("to", "done"));
    expectError(
        ErrorCode.CONFLICT, () -> call("tasks.transition", at(project, "t1").put("to", "blocked")));
    expectError(
        ErrorCode.INVALID_REQUEST,
        "to",
        () -> call("tasks.transition", at(project, "t1").put("to", "finished")));
    assertEquals("done", data(project, "t1").path("state").asText());
  }

  @Test
  @DisplayName(
      "tasks.ready lists open, unassigned tasks whose dependencies are done; cycles are refused")
  @Requirement(rule = "§7 tasks.ready")
  void tasks_readyAndCycles() {
    store(typed("base", "task", project, "a", "{'state': 'open'}"));
    store(typed("next", "task", project, "a", "{'state': 'open', 'depends_on': ['base']}"));
    store(typed("taken", "task", project, "a", "{'state': 'open', 'assignee': 'bob'}"));
    assertEquals(
        List.of("base"),
        idsOf(call("tasks.ready", Json.object().set("scope", project)).path("tasks")));
    call("tasks.transition", at(project, "base").put("to", "in_progress"));
    call("tasks.transition", at(project, "base").put("to", "done"));
    assertEquals(
        List.of("next"),
        idsOf(call("tasks.ready", Json.object().set("scope", project)).path("tasks")));
    expectError(
        ErrorCode.INVALID_RECORD,
        "data.depends_on",
        () ->
            store(
                typed("base", "task", project, "a", "{'state': 'open', 'depends_on': ['next']}")));
    assertEquals(
        "done", data(project, "base").path("state").asText(), "the cyclic change was not stored");
  }

  @Test
  @DisplayName(
      "handoffs: accept, complete, and resume with every referenced record in one response")
  @Requirement(rule = "§7 handoffs")
  void handoffs_lifecycleAndResume() {
    ObjectNode session = project.deepCopy().put("session", "s1");
    store(typed("dec", "decision", project, "a", "{'status': 'accepted', 'rationale': 'use H2'}"));
    store(typed("task", "task", project, "a", "{'state': 'open'}"));
    ObjectNode note = record("note", "note", session);
    note.put("content", "half done");
    store(note);
    String qualified = "project=" + project.path("project").asText() + ";session=s1:note";
    ObjectNode handoff =
        typed(
            "h1",
            "handoff",
            project,
            "agent-a",
            "{'from_agent': 'agent-a', 'state': 'open', 'summary': 'finish the migration',"
                + " 'next_steps': ['run it'], 'context': ['dec', '"
                + qualified
                + "', 'gone']}");
    handoff.putArray("links").add("task");
    store(handoff);
    JsonNode resumed = call("handoffs.resume", at(project, "h1"));
    assertEquals("h1", resumed.path("handoff").path("id").asText());
    assertEquals(List.of("dec", "note", "task"), idsOf(resumed.path("records")));
    assertEquals("gone", resumed.path("missing").get(0).asText());
    expectError(ErrorCode.CONFLICT, () -> call("handoffs.complete", at(project, "h1")));
    JsonNode accepted = call("handoffs.accept", at(project, "h1").put("agent", "agent-b"));
    assertEquals("agent-b", accepted.path("record").path("data").path("to_agent").asText());
    expectError(
        ErrorCode.CONFLICT,
        () -> call("handoffs.accept", at(project, "h1").put("agent", "agent-c")));
    assertEquals(
        "completed",
        call("handoffs.complete", at(project, "h1"))
            .path("record")
            .path("data")
            .path("state")
            .asText());
  }

  @Test
  @DisplayName("discovery lists the collaboration profile and its features")
  @Requirement(rule = "§4 discovery")
  void discovery_listsCollaboration() {
    List<String> features = new ArrayList<>();
    discovery()
        .path("profiles")
        .path("collaboration")
        .path("features")
        .forEach(f -> features.add(f.asText()));
    assertEquals(List.of("decisions", "rules", "status", "tasks", "handoffs"), features);
    assertFalse(features.isEmpty());
  }
}
