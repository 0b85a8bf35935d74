package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Timestamps;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's rules of the record (§1): losslessness, the fields the server sets, versions,
 * conflicts, and that an identical re-store changes nothing.
 *
 * <p>A section of {@link ContractTck}, which is how to run it: the sections extend one another in
 * the contract's order, so only the kit extends this class.
 */
public abstract class ContractRecordTck extends TckSupport {
  ContractRecordTck() {}

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
  // The contract's store semantics, stricter than the seeds' C2 (which CoreConformanceTck checks):
  // a seed rule's name here would report a failure of C2 under a core verdict that passed.
  @Requirement(rule = "§1 store semantics")
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

  private static List<String> fieldNames(JsonNode node) {
    List<String> names = new ArrayList<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }
}
