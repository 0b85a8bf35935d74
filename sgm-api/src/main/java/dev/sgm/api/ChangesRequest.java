package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;

/**
 * The {@code changes} operation's request (and a watch's): which scopes and types to follow, and
 * from where.
 *
 * @param since the cursor to resume after (an event's {@code cursor} or a response's {@code next}),
 *     or null to start at the present
 * @param types only events of these record types; empty for every type
 * @param limit the most events one response carries, 1 to {@link #MAX_LIMIT}
 */
public record ChangesRequest(
    Scope scope, ScopeMode scopeMode, String since, List<String> types, int limit) {
  public static final int DEFAULT_LIMIT = 100;
  public static final int MAX_LIMIT = 1000;

  public ChangesRequest {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(scopeMode, "scopeMode");
    types = List.copyOf(types);
    if (limit < 1 || limit > MAX_LIMIT) {
      throw SgmException.invalidRequest(
          "limit", "must be between 1 and " + MAX_LIMIT + ", was " + limit);
    }
  }

  /** Every change of exactly {@code scope}, from the present on. */
  public static ChangesRequest of(Scope scope) {
    return new ChangesRequest(scope, ScopeMode.EXACT, null, List.of(), DEFAULT_LIMIT);
  }

  /** The same request resuming after {@code cursor}. */
  public ChangesRequest since(String cursor) {
    return new ChangesRequest(scope, scopeMode, cursor, types, limit);
  }

  /** True when an event of this scope and type is one this request follows. */
  public boolean covers(Scope eventScope, String type) {
    return scopeMode.covers(scope, eventScope) && (types.isEmpty() || types.contains(type));
  }

  public static ChangesRequest fromJson(JsonNode json) {
    RequestReader r = RequestReader.of(json);
    Scope scope = r.requireScope("scope");
    String mode = r.optionalString("scope_mode");
    ScopeMode scopeMode = mode == null ? ScopeMode.EXACT : ScopeMode.fromWireName(mode);
    String since = r.optionalString("since");
    if (since != null && since.isEmpty()) {
      throw SgmException.invalidRequest("since", "must be a cursor, not an empty string");
    }
    List<String> types = r.optionalStringList("types");
    Long limit = r.optionalLong("limit", 1, MAX_LIMIT);
    r.finish();
    return new ChangesRequest(
        scope, scopeMode, since, types, limit == null ? DEFAULT_LIMIT : limit.intValue());
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.set("scope", scope.toJson());
    if (scopeMode != ScopeMode.EXACT) {
      json.put("scope_mode", scopeMode.wireName());
    }
    if (since != null) {
      json.put("since", since);
    }
    if (!types.isEmpty()) {
      types.forEach(json.putArray("types")::add);
    }
    if (limit != DEFAULT_LIMIT) {
      json.put("limit", limit);
    }
    return json;
  }
}
