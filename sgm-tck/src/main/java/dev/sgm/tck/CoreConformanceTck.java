package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.ProtocolVersion;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The seed's Core conformance cases C1–C12, one test each, over public operations only. Every
 * conforming implementation must pass all of them. Scopes carry a unique suffix so runs never see
 * each other's data.
 */
public abstract class CoreConformanceTck extends TckSupport {

  @Test
  @DisplayName("C1 store and recall by identity")
  @Requirement(rule = "C1")
  void c01_storeAndRecallByIdentity() {
    ObjectNode scope = scope("project", unique("conf"));
    ObjectNode record = record("c1", "fact", scope);
    record.put("content", "The build uses Maven.");
    store(record);

    ObjectNode query = Json.object();
    query.putArray("ids").add("c1");
    query.set("scope", scope);
    JsonNode result = retrieve(query);

    assertEquals(1, result.path("records").size(), "exactly the stored record");
    JsonNode back = result.path("records").get(0);
    assertEquals("c1", back.path("id").asText());
    assertEquals("fact", back.path("type").asText());
    assertEquals("The build uses Maven.", back.path("content").asText());
    assertEquals(scope, back.path("scope"));
  }

  @Test
  @DisplayName("C2 store is idempotent by identity")
  @Requirement(rule = "C2")
  void c02_storeIsIdempotentByIdentity() {
    ObjectNode scope = scope("project", unique("conf"));
    ObjectNode record = record("c2", "note", scope);
    record.put("content", "same content");
    store(record.deepCopy());
    store(record.deepCopy());

    JsonNode result = retrieveIn(scope, "{'ids': ['c2']}");
    assertEquals(1, result.path("records").size(), "one record, no duplicate");
    assertEquals(1, result.path("total").asLong(), "total counts one record");
    assertEquals(
        1,
        result.path("records").get(0).path("version").asLong(),
        "an unchanged re-store is not a new version");
  }

  @Test
  @DisplayName("C3 read returns full provenance")
  @Requirement(rule = "C3")
  void c03_readReturnsFullProvenance() {
    ObjectNode scope = scope("project", unique("conf"));
    ObjectNode record = record("c3", "fact", scope);
    ObjectNode provenance =
        json(
            "{'agent': 'build-agent', 'session': '20261010-104120', 'created_at': '2026-10-10T18:21:47Z',"
                + " 'origin': 'cli', 'tool': {'name': 'editor', 'version': '1.2.0'}}");
    provenance.set("scope", scope.deepCopy());
    record.set("provenance", provenance.deepCopy());
    store(record);

    JsonNode back = read(scope, "c3").path("provenance");
    for (String field :
        new String[] {"agent", "created_at", "origin", "scope", "session", "tool"}) {
      assertEquals(provenance.get(field), back.get(field), "provenance." + field + " unmodified");
    }
  }

  @Test
  @DisplayName("C4 unknown record type is preserved")
  @Requirement(rule = "C4")
  void c04_unknownRecordTypeIsPreserved() {
    ObjectNode scope = scope("project", unique("conf"));
    ObjectNode record = record("c4", "future-type", scope);
    ObjectNode metadata =
        json("{'custom': {'nested': [1, 2.50, 'x']}, 'flag': true, 'weight': 1.0}");
    record.set("metadata", metadata.deepCopy());
    store(record);

    JsonNode back = retrieveIn(scope, "{'ids': ['c4']}").path("records").get(0);
    assertEquals("future-type", back.path("type").asText(), "type not coerced");
    assertEquals(
        Json.write(metadata), Json.write(back.path("metadata")), "metadata intact, byte for byte");
    assertEquals("future-type", read(scope, "c4").path("type").asText());
  }

  @Test
  @DisplayName("C5 scope isolation: no sibling leakage")
  @Requirement(rule = "C5")
  void c05_noSiblingLeakage() {
    String run = unique("run");
    ObjectNode alpha = scope("project", "alpha-" + run);
    ObjectNode beta = scope("project", "beta-" + run);
    store(record("c5", "fact", alpha));

    for (String mode : new String[] {"exact", "descendants", "ancestors", "lineage"}) {
      JsonNode result = retrieveIn(beta, "{'scope_mode': '" + mode + "'}");
      assertEquals(0, result.path("records").size(), "nothing of alpha in beta (" + mode + ")");
      assertEquals(0, result.path("total").asLong(), "not even counted (" + mode + ")");
    }
    expectError(ErrorCode.NOT_FOUND, () -> read(beta, "c5"));
  }

  @Test
  @DisplayName("C6 scope isolation: no parent leakage without request")
  @Requirement(rule = "C6")
  void c06_noNarrowerLeakageWithoutRequest() {
    String project = unique("alpha");
    ObjectNode session = scope("project", project, "session", "s1");
    store(record("c6", "note", session));

    JsonNode result = retrieveIn(scope("project", project), null);
    assertFalse(ids(result).contains("c6"), "the session record is not returned by default");
    // When asked for, it comes back carrying its own scope.
    JsonNode asked = retrieveIn(scope("project", project), "{'scope_mode': 'descendants'}");
    assertEquals(1, asked.path("records").size());
    assertEquals(session, asked.path("records").get(0).path("scope"));
  }

  @Test
  @DisplayName("C7 identity fields present on provenance")
  @Requirement(rule = "C7")
  void c07_identityFieldsPresentOnProvenance() {
    ObjectNode scope = scope("project", unique("conf"));
    store(record("c7", "fact", scope));

    JsonNode provenance = retrieveIn(scope, null).path("records").get(0).path("provenance");
    assertFalse(provenance.path("agent").asText("").isEmpty(), "provenance.agent present");
    assertFalse(
        provenance.path("created_at").asText("").isEmpty(), "provenance.created_at present");
  }

  @Test
  @DisplayName("C8 capability discovery reports core")
  @Requirement(rule = "C8")
  void c08_discoveryReportsCore() {
    JsonNode discovery = discovery();
    assertTrue(discovery.path("protocol_version").isTextual(), "protocol_version");
    assertTrue(discovery.path("implementation").isTextual(), "implementation");
    assertTrue(discovery.path("capabilities").isArray(), "capabilities array");
    boolean core = false;
    for (JsonNode capability : discovery.path("capabilities")) {
      core |= capability.asText().equals("core");
    }
    assertTrue(core, "capabilities include core");
  }

  @Test
  @DisplayName("C9 protocol version is reported")
  @Requirement(rule = "C9")
  void c09_protocolVersionIsParseable() {
    ProtocolVersion version = ProtocolVersion.parse(discovery().path("protocol_version").asText());
    assertTrue(version.major() >= 0);
  }

  @Test
  @DisplayName("C10 empty retrieval is not an error")
  @Requirement(rule = "C10")
  void c10_emptyRetrievalIsNotAnError() {
    JsonNode result =
        retrieveIn(scope("project", unique("empty")), "{'text': 'nothing matches this'}");
    assertTrue(result.path("records").isArray(), "records array");
    assertEquals(0, result.path("records").size());
    assertTrue(result.path("total").isNumber(), "total present");
    assertEquals(0, result.path("total").asLong());
    assertFalse(result.has("error"));
  }

  @Test
  @DisplayName("C11 reference round-trips")
  @Requirement(rule = "C11")
  void c11_referenceRoundTrips() {
    ObjectNode scope = scope("project", unique("conf"));
    ObjectNode record = record("c11", "note", scope);
    ObjectNode reference =
        json(
            "{'kind': 'content-hash', 'hash': '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',"
                + " 'encoding': 'utf-8', 'bytes': 4211, 'location': {'store': 'elsewhere', 'weight': 1.0}}");
    record.set("reference", reference.deepCopy());
    store(record);

    JsonNode back = retrieveIn(scope, "{'ids': ['c11']}").path("records").get(0).path("reference");
    assertEquals(Json.write(reference), Json.write(back), "the reference object intact");
  }

  @Test
  @DisplayName("C12 record schema validation")
  @Requirement(rule = "C12")
  void c12_recordSchemaValidation() {
    ObjectNode scope = scope("project", unique("conf"));
    ObjectNode record = record("c12", "fact", scope);
    record.remove("scope");

    expectError(ErrorCode.INVALID_RECORD, "scope", () -> store(record));
    assertEquals(0, retrieveIn(scope, null).path("total").asLong(), "nothing stored");
  }
}
