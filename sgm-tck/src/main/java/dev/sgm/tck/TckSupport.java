package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every TCK suite shares: the factory hook for the implementation under test, unique scopes
 * per test (so suites can run against a long-lived server), and helpers that speak the wire JSON.
 */
public abstract class TckSupport {
  private SgmClient client;

  /**
   * The implementation under test. Called before each test; may return the same client every time.
   */
  protected abstract SgmClient client();

  @BeforeEach
  final void connect() {
    client = client();
  }

  /** A scope value no other test run uses. */
  protected static String unique(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 12);
  }

  /** Parses JSON text, with {@code '} standing for {@code "} so requests read well in Java. */
  protected static ObjectNode json(String text) {
    return (ObjectNode) Json.parse(text.replace('\'', '"'));
  }

  protected static ObjectNode scope(String... keysAndValues) {
    ObjectNode scope = Json.object();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      scope.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return scope;
  }

  /** A minimal valid record. */
  protected static ObjectNode record(String id, String type, ObjectNode scope) {
    ObjectNode record = Json.object();
    record.put("id", id);
    record.put("type", type);
    record.set("scope", scope.deepCopy());
    record.putObject("provenance").put("agent", "tck-agent");
    return record;
  }

  protected JsonNode call(String operation, JsonNode request) {
    return client.call(operation, request);
  }

  protected JsonNode discovery() {
    return call("discover", Json.object());
  }

  /**
   * Skips the test, with a reason, when the implementation does not advertise {@code capability}.
   */
  protected void assumeCapability(String capability) {
    JsonNode capabilities = discovery().path("capabilities");
    boolean present = false;
    for (JsonNode c : capabilities) {
      present |= c.asText().equals(capability);
    }
    Assumptions.assumeTrue(present, "the implementation does not advertise '" + capability + "'");
  }

  protected JsonNode store(ObjectNode record) {
    ObjectNode request = Json.object();
    request.set("record", record);
    return call("store", request);
  }

  protected ObjectNode storeRecord(ObjectNode record) {
    return (ObjectNode) store(record).path("record");
  }

  protected ObjectNode read(ObjectNode scope, String id) {
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("id", id);
    return (ObjectNode) call("read", request).path("record");
  }

  protected JsonNode retrieve(ObjectNode query) {
    return call("retrieve", query);
  }

  /** A retrieve in exactly {@code scope}, plus the given extra query fields. */
  protected JsonNode retrieveIn(ObjectNode scope, String extraJson) {
    ObjectNode query = json(extraJson == null ? "{}" : extraJson);
    query.set("scope", scope);
    return retrieve(query);
  }

  /** The ids of a result's records, in order. */
  protected static List<String> ids(JsonNode result) {
    return idsOf(result.path("records"));
  }

  /** The ids of an array of records, in order. */
  protected static List<String> idsOf(JsonNode records) {
    List<String> ids = new ArrayList<>();
    records.forEach(r -> ids.add(r.path("id").asText()));
    return ids;
  }

  /** Runs {@code call}, which must fail with {@code code}; returns the error for further checks. */
  protected static SgmException expectError(ErrorCode code, Runnable call) {
    try {
      call.run();
    } catch (SgmException e) {
      assertEquals(code, e.code(), () -> "error code for: " + e.getMessage());
      assertTrue(!e.getMessage().isBlank(), "the error has a message");
      return e;
    }
    return fail("expected the error " + code.wireName() + ", but the call succeeded");
  }

  /**
   * As {@link #expectError}, and the error must name {@code field} (in its details or its message).
   */
  protected static SgmException expectError(ErrorCode code, String field, Runnable call) {
    SgmException e = expectError(code, call);
    boolean named =
        e.details().stream()
                .map(FieldError::field)
                .anyMatch(
                    f -> f.equals(field) || f.startsWith(field + ".") || f.startsWith(field + "["))
            || e.getMessage().contains(field);
    assertTrue(
        named,
        () -> "the error should name '" + field + "': " + e.getMessage() + " " + e.details());
    return e;
  }
}
