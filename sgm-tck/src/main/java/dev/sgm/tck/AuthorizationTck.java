package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * CONTRACT §8 from outside: a principal whose only grant is {@code read} on one scope. {@link
 * #client()} is a caller that may write everywhere (the owner, or a bootstrap token) and seeds a
 * project with a granted session, a sibling session and the project's own records; the reader then
 * must see the granted session alone, in records and in counts, and be refused where it names
 * another scope.
 */
@TestMethodOrder(MethodOrderer.MethodName.class)
public abstract class AuthorizationTck extends TckSupport {
  private ObjectNode project;
  private ObjectNode granted;
  private ObjectNode sibling;
  private SgmClient reader;

  /**
   * A client of the same implementation acting as a principal whose only grant is {@code read} on
   * {@code scope} (and every narrower scope), who may speak for any agent.
   */
  protected abstract SgmClient readerOf(ObjectNode scope);

  @BeforeEach
  final void seed() {
    String name = unique("auth");
    project = scope("project", name);
    granted = scope("project", name, "session", "granted");
    sibling = scope("project", name, "session", "other");
    for (ObjectNode scope : List.of(project, granted, sibling)) {
      for (int i = 0; i < 2; i++) {
        ObjectNode record = record(scope.path("session").asText("root") + "-" + i, "note", scope);
        record.put("content", "shared marker words " + scope.path("session").asText("root"));
        store(record);
      }
    }
    reader = readerOf(granted);
  }

  private JsonNode asReader(String operation, JsonNode request) {
    return reader.call(operation, request);
  }

  private ObjectNode query(ObjectNode scope, String mode, String text) {
    ObjectNode query = Json.object();
    query.set("scope", scope);
    query.put("scope_mode", mode);
    if (text != null) {
      query.put("text", text);
    }
    return query;
  }

  @Test
  void a01_descendantsFromTheProjectKeepToTheGrantedSession() {
    JsonNode page = asReader("retrieve", query(project, "descendants", null));
    assertEquals(List.of("granted-0", "granted-1"), ids(page).stream().sorted().toList());
    assertEquals(2, page.path("total").asInt(), "total counts the visible records only");
  }

  @Test
  void a02_aTextSearchCountsTheVisibleRecordsOnly() {
    JsonNode page = asReader("retrieve", query(project, "descendants", "marker words"));
    assertEquals(List.of("granted-0", "granted-1"), ids(page).stream().sorted().toList());
    assertEquals(2, page.path("total").asInt(), "total counts the visible records only");
  }

  @Test
  void a03_lineageHidesTheUngrantedProject() {
    JsonNode page = asReader("retrieve", query(granted, "lineage", null));
    assertEquals(List.of("granted-0", "granted-1"), ids(page).stream().sorted().toList());
    assertEquals(2, page.path("total").asInt());
  }

  @Test
  void a04_pagesOfOneKeepToTheGrantToo() {
    ObjectNode query = query(project, "descendants", null);
    query.put("limit", 1);
    JsonNode first = asReader("retrieve", query);
    assertEquals(2, first.path("total").asInt());
    query.put("cursor", first.path("next_cursor").asText());
    JsonNode second = asReader("retrieve", query);
    assertEquals(1, ids(second).size());
    assertEquals(false, second.hasNonNull("next_cursor"), "no third page: " + second);
  }

  @Test
  void a05_namingAnotherScopeIsForbidden() {
    ObjectNode read = Json.object();
    read.set("scope", sibling);
    read.put("id", "other-0");
    expectError(ErrorCode.FORBIDDEN, () -> asReader("read", read));
    read.set("scope", project);
    read.put("id", "root-0");
    expectError(ErrorCode.FORBIDDEN, () -> asReader("read", read));
    expectError(ErrorCode.FORBIDDEN, () -> asReader("retrieve", query(sibling, "exact", null)));
  }

  @Test
  void a06_aReadGrantDoesNotWrite() {
    ObjectNode request = Json.object();
    request.set("record", record("new", "note", granted));
    expectError(ErrorCode.FORBIDDEN, () -> asReader("store", request));
    ObjectNode read = Json.object();
    read.set("scope", granted);
    read.put("id", "granted-0");
    assertEquals("granted-0", asReader("read", read).path("record").path("id").asText());
  }
}
