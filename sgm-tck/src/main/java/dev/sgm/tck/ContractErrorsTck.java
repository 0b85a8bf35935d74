package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The contract's rules of errors (§5): invalid input names the field at fault, and the codes of the
 * other failures.
 *
 * <p>A section of {@link ContractTck}, which is how to run it: the sections extend one another in
 * the contract's order, so only the kit extends this class.
 */
public abstract class ContractErrorsTck extends ContractDiscoveryTck {
  ContractErrorsTck() {}

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
}
