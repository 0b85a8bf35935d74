package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The history profile (CONTRACT §7): versions, soft delete, restore, undelete and snapshots.
 * Skipped, with the reason, when the implementation does not advertise {@code history}.
 */
public abstract class HistoryTck extends TckSupport {
  private ObjectNode scope;

  @BeforeEach
  void requireHistory() {
    assumeCapability("history");
    scope = scope("project", unique("history"));
  }

  private JsonNode write(String id, String content, String agent) {
    ObjectNode record = record(id, "note", scope);
    record.put("content", content);
    ((ObjectNode) record.get("provenance")).put("agent", agent);
    return store(record);
  }

  private ObjectNode at(String id) {
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("id", id);
    return request;
  }

  private ObjectNode snapshotRef(String name) {
    ObjectNode ref = Json.object();
    ref.set("scope", scope);
    ref.put("name", name);
    return ref;
  }

  private List<String> contents(JsonNode result) {
    List<String> contents = new ArrayList<>();
    result
        .path("records")
        .forEach(r -> contents.add(r.path("id").asText() + "=" + r.path("content").asText()));
    return contents;
  }

  @Test
  @DisplayName("history.versions lists every version newest first, with writer and time, paged")
  @Requirement(rule = "§7 history.versions")
  void versions_newestFirstWithWriterAndPaging() {
    write("doc", "one", "alice");
    write("doc", "two", "bob");
    write("doc", "three", "carol");
    JsonNode all = call("history.versions", at("doc"));
    List<Long> versions = new ArrayList<>();
    all.path("versions").forEach(v -> versions.add(v.path("version").asLong()));
    assertEquals(List.of(3L, 2L, 1L), versions);
    assertEquals("bob", all.path("versions").get(1).path("writer").asText());
    assertEquals("two", all.path("versions").get(1).path("record").path("content").asText());
    assertFalse(all.path("versions").get(0).path("written_at").asText().isEmpty());

    ObjectNode firstPage = at("doc").put("limit", 2);
    JsonNode page = call("history.versions", firstPage);
    assertEquals(2, page.path("versions").size());
    ObjectNode next = at("doc").put("limit", 2).put("cursor", page.path("next_cursor").asText());
    JsonNode rest = call("history.versions", next);
    assertEquals(1, rest.path("versions").size());
    assertEquals(1, rest.path("versions").get(0).path("version").asLong());
    assertFalse(rest.has("next_cursor"));
  }

  @Test
  @DisplayName("history.read returns one past version; an unknown one is not_found")
  @Requirement(rule = "§7 history.read")
  void read_onePastVersion() {
    write("doc", "first", "a");
    write("doc", "second", "a");
    assertEquals(
        "first",
        call("history.read", at("doc").put("version", 1)).path("record").path("content").asText());
    expectError(ErrorCode.NOT_FOUND, () -> call("history.read", at("doc").put("version", 9)));
    expectError(ErrorCode.INVALID_REQUEST, "version", () -> call("history.read", at("doc")));
  }

  @Test
  @DisplayName("history.restore makes a past version current as a new version; the past stays")
  @Requirement(rule = "§7 history.restore")
  void restore_isANewVersion() {
    write("doc", "good", "a");
    write("doc", "bad", "b");
    JsonNode restored = call("history.restore", at("doc").put("version", 1));
    assertEquals(3, restored.path("record").path("version").asLong(), "a new version number");
    assertEquals("good", read(scope, "doc").path("content").asText());
    assertEquals(
        3, call("history.versions", at("doc")).path("versions").size(), "nothing rewritten");
    assertEquals(
        "bad",
        call("history.read", at("doc").put("version", 2)).path("record").path("content").asText());
  }

  @Test
  @DisplayName("delete is soft: hidden from read and retrieve, kept in history, undeletable")
  @Requirement(rule = "§7 soft delete")
  void delete_isSoftAndUndeletable() {
    write("doc", "keep me", "a");
    JsonNode deleted = call("delete", at("doc"));
    assertTrue(deleted.path("soft").asBoolean(), "soft with history on");
    expectError(ErrorCode.NOT_FOUND, () -> read(scope, "doc"));
    assertEquals(
        0, retrieveIn(scope, null).path("total").asLong(), "a deleted record is not retrieved");
    JsonNode versions = call("history.versions", at("doc")).path("versions");
    assertTrue(versions.get(0).path("deleted").asBoolean(), "the deletion is in the history");
    JsonNode back = call("history.undelete", at("doc"));
    assertEquals("keep me", back.path("record").path("content").asText());
    assertEquals("keep me", read(scope, "doc").path("content").asText());
    assertTrue(back.path("record").path("version").asLong() > 1, "undelete is a new version");
    expectError(ErrorCode.CONFLICT, () -> call("history.undelete", at("doc")));
    expectError(ErrorCode.NOT_FOUND, () -> call("history.undelete", at("never")));
  }

  @Test
  @DisplayName("snapshots.retrieve answers a query as the scope was at the snapshot")
  @Requirement(rule = "§7 snapshots.retrieve")
  void snapshot_retrieveAsOfThen() {
    write("a", "alpha original", "x");
    write("b", "beta", "x");
    ObjectNode create = Json.object();
    create.set("scope", scope);
    create.put("name", "before");
    JsonNode snapshot = call("snapshots.create", create).path("snapshot");
    assertEquals("before", snapshot.path("name").asText());
    write("a", "alpha changed", "x");
    call("delete", at("b"));
    write("c", "gamma", "x");

    ObjectNode query = Json.object();
    query.set("scope", scope);
    ObjectNode request = Json.object();
    request.set("snapshot", snapshotRef("before"));
    request.set("query", query.deepCopy().put("order_by", "created_at").put("order", "asc"));
    assertEquals(
        List.of("a=alpha original", "b=beta"), contents(call("snapshots.retrieve", request)));
    request.set("query", query.deepCopy().put("text", "original"));
    assertEquals(List.of("a=alpha original"), contents(call("snapshots.retrieve", request)));
    assertEquals(
        Set.of("a=alpha changed", "c=gamma"),
        new HashSet<>(contents(retrieveIn(scope, null))),
        "the present is unchanged");
  }

  @Test
  @DisplayName(
      "snapshots.restore puts the scope back: changed restored, deleted back, new ones deleted")
  @Requirement(rule = "§7 snapshots.restore")
  void snapshot_restore() {
    write("a", "alpha original", "x");
    write("b", "beta", "x");
    write("same", "untouched", "x");
    ObjectNode create = Json.object();
    create.set("scope", scope);
    create.put("name", "good");
    call("snapshots.create", create);
    write("a", "alpha broken", "x");
    call("delete", at("b"));
    write("c", "created later", "x");

    ObjectNode restore = Json.object();
    restore.set("scope", scope);
    restore.put("name", "good");
    JsonNode result = call("snapshots.restore", restore);
    assertEquals(2, result.path("restored").asInt(), result.toString());
    assertEquals(1, result.path("deleted").asInt(), result.toString());
    assertEquals(1, result.path("unchanged").asInt(), result.toString());
    assertEquals(
        Set.of("a=alpha original", "b=beta", "same=untouched"),
        new HashSet<>(contents(retrieveIn(scope, null))));
    assertEquals(3, read(scope, "a").path("version").asLong(), "restoring is a new version");
    expectError(ErrorCode.NOT_FOUND, () -> read(scope, "c"));
  }

  @Test
  @DisplayName("a snapshot with descendants covers the narrower scopes")
  @Requirement(rule = "§7 snapshots.create")
  void snapshot_withDescendants() {
    ObjectNode session = scope.deepCopy().put("session", "s1");
    ObjectNode inSession = record("s", "note", session);
    inSession.put("content", "session note");
    store(inSession);
    ObjectNode create = Json.object();
    create.set("scope", scope);
    create.put("name", "all");
    create.put("descendants", true);
    call("snapshots.create", create);
    call("delete", Json.object().<ObjectNode>set("scope", session).put("id", "s"));
    ObjectNode request = Json.object();
    request.set("snapshot", snapshotRef("all"));
    request.set(
        "query", Json.object().<ObjectNode>set("scope", scope).put("scope_mode", "descendants"));
    assertEquals(List.of("s=session note"), contents(call("snapshots.retrieve", request)));
    ObjectNode restore = Json.object();
    restore.set("scope", scope);
    restore.put("name", "all");
    call("snapshots.restore", restore);
    assertEquals("session note", read(session, "s").path("content").asText());
  }

  @Test
  @DisplayName(
      "snapshot names are unique per scope; unknown snapshots are not_found; list is newest first")
  @Requirement(rule = "§7 snapshots.list")
  void snapshot_namesAndListing() {
    ObjectNode create = Json.object();
    create.set("scope", scope);
    create.put("name", "first");
    call("snapshots.create", create);
    write("x", "between", "a");
    call("snapshots.create", create.deepCopy().put("name", "second"));
    expectError(ErrorCode.CONFLICT, () -> call("snapshots.create", create));
    JsonNode list = call("snapshots.list", Json.object().set("scope", scope)).path("snapshots");
    assertEquals(2, list.size());
    assertEquals("second", list.get(0).path("name").asText());
    ObjectNode restore = Json.object();
    restore.set("scope", scope);
    restore.put("name", "nope");
    expectError(ErrorCode.NOT_FOUND, () -> call("snapshots.restore", restore));
  }

  @Test
  @DisplayName("discovery lists the history profile and its features")
  @Requirement(rule = "§4 discovery")
  void discovery_listsHistory() {
    JsonNode features = discovery().path("profiles").path("history").path("features");
    List<String> names = new ArrayList<>();
    features.forEach(f -> names.add(f.asText()));
    assertEquals(List.of("versions", "snapshots", "restoration"), names);
  }
}
