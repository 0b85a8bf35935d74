package dev.sgm.profile.collaboration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.RequestReader;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.RecordWriter;
import java.util.ArrayList;
import java.util.List;

/** What the collaboration operations share: their requests, and how they find records. */
final class Requests {
  private Requests() {}

  /** A request naming a scope and, for operations on one record, its id. */
  static JsonSchemas.ObjectSchema schema(boolean withId) {
    JsonSchemas.ObjectSchema schema =
        JsonSchemas.object()
            .additionalProperties(false)
            .required("scope", JsonSchemas.scope("The scope, e.g. {\"project\": \"myproject\"}."));
    return withId ? schema.required("id", JsonSchemas.text("The record's id.")) : schema;
  }

  /** The record a request names, and the reader of the request's other fields. */
  record Target(Scope scope, String id, RequestReader rest) {}

  static Target target(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    return new Target(reader.requireScope("scope"), reader.requireString("id"), reader);
  }

  /** The scope of a request that names nothing else. */
  static Scope scopeOnly(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    Scope scope = reader.requireScope("scope");
    reader.finish();
    return scope;
  }

  /** The record of that id, which must be of {@code type}. */
  static MemoryRecord load(RecordWriter writer, Scope scope, String id, String type) {
    MemoryRecord record =
        writer
            .read(scope, id)
            .orElseThrow(
                () -> new SgmException(ErrorCode.NOT_FOUND, "no record " + scope.qualify(id)));
    if (!record.type().equals(type)) {
      throw SgmException.invalidRequest(
          "id", scope.qualify(id) + " is a " + record.type() + ", not a " + type);
    }
    return record;
  }

  /**
   * Every live record of {@code type} in the scope (and, with the mode, its relatives) that the
   * caller sees whole.
   */
  static List<MemoryRecord> all(
      ProfileContext context, Caller caller, Scope scope, ScopeMode mode, String type) {
    List<MemoryRecord> records = new ArrayList<>();
    String cursor = null;
    do {
      RetrieveResult page =
          context
              .service()
              .retrieve(
                  caller,
                  RetrieveQuery.builder(scope)
                      .scopeMode(mode)
                      .types(List.of(type))
                      .orderBy(RetrieveQuery.OrderBy.CREATED_AT)
                      .ascending(true)
                      .limit(RetrieveQuery.MAX_LIMIT)
                      .cursor(cursor)
                      .build());
      // A record above the caller's clearance withholds its data, which the operations decide
      // on: it takes no part, rather than being judged by defaults.
      page.records().stream()
          .filter(r -> !r.json().path("redacted").asBoolean(false))
          .forEach(records::add);
      cursor = page.nextCursor();
    } while (cursor != null);
    return records;
  }

  /** A response listing records under {@code field}. */
  static ObjectNode list(String field, List<MemoryRecord> records) {
    ObjectNode response = Json.object();
    ArrayNode array = response.putArray(field);
    records.forEach(r -> array.add(r.view()));
    return response;
  }
}
