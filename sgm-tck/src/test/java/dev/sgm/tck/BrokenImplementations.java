package dev.sgm.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Deliberately broken implementations, each wrapping the real engine and breaking one rule, so the
 * TCK can be shown to catch it.
 */
final class BrokenImplementations {
  private BrokenImplementations() {}

  /** Retrieve also answers from every other scope it has seen: sibling leakage (C5). */
  static SgmClient leaksSiblingScopes(SgmClient real) {
    Set<JsonNode> scopes = new LinkedHashSet<>();
    return (operation, request) -> {
      if (operation.equals("store")) {
        scopes.add(request.path("record").path("scope").deepCopy());
      }
      if (!operation.equals("retrieve")) {
        return real.call(operation, request);
      }
      ObjectNode merged = (ObjectNode) real.call(operation, request);
      ArrayNode records = (ArrayNode) merged.get("records");
      long total = merged.path("total").asLong();
      for (JsonNode scope : Set.copyOf(scopes)) {
        if (scope.equals(request.get("scope"))) {
          continue;
        }
        ObjectNode other = ((ObjectNode) request).deepCopy();
        other.set("scope", scope);
        other.remove("cursor");
        JsonNode extra = real.call(operation, other);
        records.addAll((ArrayNode) extra.get("records"));
        total += extra.path("total").asLong();
      }
      merged.put("total", total);
      return merged;
    };
  }

  /** Types outside the seed's enum are stored as notes: coercion (C4). */
  static SgmClient coercesUnknownTypes(SgmClient real) {
    Set<String> known =
        Set.of("fact", "note", "decision", "rule", "status", "task", "handoff", "annotation");
    return (operation, request) -> {
      if (operation.equals("store") && request.path("record").isObject()) {
        ObjectNode record = (ObjectNode) request.get("record");
        if (record.path("type").isTextual() && !known.contains(record.path("type").asText())) {
          record.put("type", "note");
        }
      }
      return real.call(operation, request);
    };
  }

  /** Every re-store of an identity adds another copy to retrieve: duplication (C2). */
  static SgmClient duplicatesOnRestore(SgmClient real) {
    Map<String, Integer> stores = new HashMap<>();
    return (operation, request) -> {
      JsonNode response = real.call(operation, request);
      if (operation.equals("store")) {
        JsonNode record = request.path("record");
        stores.merge(
            Json.write(record.path("scope")) + record.path("id").asText(), 1, Integer::sum);
      } else if (operation.equals("retrieve")) {
        ObjectNode result = ((ObjectNode) response).deepCopy();
        ArrayNode records = Json.array();
        for (JsonNode r : response.path("records")) {
          int copies = stores.getOrDefault(Json.write(r.path("scope")) + r.path("id").asText(), 1);
          for (int i = 0; i < copies; i++) {
            records.add(r);
          }
        }
        result.set("records", records);
        result.put("total", records.size());
        return result;
      }
      return response;
    };
  }

  /** Read and retrieve drop provenance fields other than agent: lost provenance (C3). */
  static SgmClient dropsProvenance(SgmClient real) {
    return (operation, request) -> {
      JsonNode response = real.call(operation, request);
      if (operation.equals("read")) {
        strip(response.path("record"));
      } else if (operation.equals("retrieve")) {
        response.path("records").forEach(BrokenImplementations::strip);
      }
      return response;
    };
  }

  private static void strip(JsonNode record) {
    if (record.path("provenance").isObject()) {
      ObjectNode provenance = (ObjectNode) record.get("provenance");
      provenance.retain("agent", "created_at");
    }
  }

  /** An empty retrieve is reported as not_found (C10). */
  static SgmClient failsOnEmptyRetrieve(SgmClient real) {
    return (operation, request) -> {
      JsonNode response = real.call(operation, request);
      if (operation.equals("retrieve") && response.path("total").asLong() == 0) {
        throw new SgmException(ErrorCode.NOT_FOUND, "no records");
      }
      return response;
    };
  }

  /** code.diffs_touching answers oldest first (§7 orders diffs newest first). */
  static SgmClient listsDiffsOldestFirst(SgmClient real) {
    return (operation, request) -> {
      JsonNode response = real.call(operation, request);
      if (operation.equals("code.diffs_touching")) {
        ArrayNode reversed = Json.array();
        response.path("diffs").forEach(d -> reversed.insert(0, d));
        ((ObjectNode) response).set("diffs", reversed);
      }
      return response;
    };
  }

  // ---- relevance (§3): each breaks one rule of text search and nothing else

  private static final List<String> CRITERIA =
      List.of(
          "types",
          "tags",
          "tags_mode",
          "filter",
          "created_after",
          "created_before",
          "updated_after");

  private static boolean isTextSearch(String operation, JsonNode request) {
    return operation.equals("retrieve") && request.path("text").isTextual();
  }

  /**
   * Ranks the scope's whole lineage with no other criteria, then drops what fails them: a page
   * comes back short when better-scoring records fail a criterion. Totals are counted correctly.
   */
  static SgmClient filtersAfterRanking(SgmClient real) {
    return (operation, request) -> {
      if (!isTextSearch(operation, request) || !hasCriteria(request)) {
        return real.call(operation, request);
      }
      ObjectNode wide = ((ObjectNode) request).deepCopy();
      wide.remove(CRITERIA);
      wide.put("scope_mode", "lineage");
      ObjectNode page = (ObjectNode) real.call(operation, wide);
      ArrayNode records = Json.array();
      ArrayNode scores = Json.array();
      for (int i = 0; i < page.path("records").size(); i++) {
        JsonNode record = page.path("records").get(i);
        if (passes(request, record)) {
          records.add(record);
          if (page.path("scores").has(i)) {
            scores.add(page.path("scores").get(i));
          }
        }
      }
      page.set("records", records);
      if (page.has("scores")) {
        page.set("scores", scores);
      }
      ObjectNode count = ((ObjectNode) request).deepCopy();
      count.remove("cursor");
      count.put("limit", 1);
      page.put("total", real.call(operation, count).path("total").asLong());
      return page;
    };
  }

  private static boolean hasCriteria(JsonNode request) {
    return CRITERIA.stream().anyMatch(request::has) || request.has("scope_mode");
  }

  /** The criteria the relevance suite uses, checked the way a late filter would. */
  private static boolean passes(JsonNode query, JsonNode record) {
    if (!inScope(
        query.path("scope"), query.path("scope_mode").asText("exact"), record.path("scope"))) {
      return false;
    }
    if (query.has("types") && !contains(query.path("types"), record.path("type"))) {
      return false;
    }
    for (JsonNode tag : query.path("tags")) {
      if (!contains(record.path("tags"), tag)) {
        return false;
      }
    }
    for (Map.Entry<String, JsonNode> f : query.path("filter").properties()) {
      JsonNode value = record;
      for (String step : f.getKey().split("\\.")) {
        value = value.path(step);
      }
      if (!value.equals(f.getValue())) {
        return false;
      }
    }
    return after(record.path("created_at"), query.path("created_after"))
        && after(query.path("created_before"), record.path("created_at"))
        && after(record.path("updated_at"), query.path("updated_after"));
  }

  private static boolean inScope(JsonNode scope, String mode, JsonNode candidate) {
    boolean narrower = covers(scope, candidate);
    boolean broader = covers(candidate, scope);
    return switch (mode) {
      case "descendants" -> narrower;
      case "ancestors" -> broader;
      case "lineage" -> narrower || broader;
      default -> narrower && broader;
    };
  }

  /** Whether every pair of {@code outer} is in {@code inner}. */
  private static boolean covers(JsonNode outer, JsonNode inner) {
    for (Map.Entry<String, JsonNode> pair : outer.properties()) {
      if (!pair.getValue().equals(inner.get(pair.getKey()))) {
        return false;
      }
    }
    return true;
  }

  private static boolean contains(JsonNode array, JsonNode value) {
    for (JsonNode item : array) {
      if (item.equals(value)) {
        return true;
      }
    }
    return false;
  }

  /** {@code later} is after {@code earlier}; a missing bound passes. */
  private static boolean after(JsonNode later, JsonNode earlier) {
    if (!later.isTextual() || !earlier.isTextual()) {
      return true;
    }
    return Instant.parse(later.asText()).isAfter(Instant.parse(earlier.asText()));
  }

  /**
   * Text search also answers from what the record held before it was deleted: a stale index that
   * never forgets.
   */
  static SgmClient returnsDeletedFromText(SgmClient real) {
    Map<String, JsonNode> deleted = new ConcurrentHashMap<>();
    return (operation, request) -> {
      if (operation.equals("delete")) {
        ObjectNode read = Json.object();
        read.set("scope", request.path("scope"));
        read.set("id", request.path("id"));
        JsonNode record = real.call("read", read).path("record");
        JsonNode response = real.call(operation, request);
        deleted.put(Json.write(request.path("scope")) + request.path("id").asText(), record);
        return response;
      }
      JsonNode response = real.call(operation, request);
      if (isTextSearch(operation, request) && !request.has("cursor")) {
        ObjectNode result = (ObjectNode) response;
        Set<String> words = words(request.path("text").asText());
        for (JsonNode record : deleted.values()) {
          if (record.path("scope").equals(request.path("scope"))
              && words.stream().anyMatch(words(record.path("content").asText())::contains)) {
            result.withArray("records").add(record);
            if (result.has("scores")) {
              result.withArray("scores").add(0);
            }
            result.put("total", result.path("total").asLong() + 1);
          }
        }
      }
      return response;
    };
  }

  private static Set<String> words(String text) {
    Set<String> words = new HashSet<>();
    for (String word : text.toLowerCase(Locale.ROOT).split("[^\\p{L}\\p{N}]+")) {
      if (word.length() > 2) {
        words.add(word);
      }
    }
    return words;
  }

  /**
   * A {@code mode} the engine refuses is quietly dropped and the query answered without it: unknown
   * modes and missing embedders go unreported.
   */
  static SgmClient ignoresModeErrors(SgmClient real) {
    return (operation, request) -> {
      try {
        return real.call(operation, request);
      } catch (SgmException e) {
        if (!operation.equals("retrieve") || !request.has("mode")) {
          throw e;
        }
        ObjectNode without = ((ObjectNode) request).deepCopy();
        without.remove("mode");
        return real.call(operation, without);
      }
    };
  }

  /**
   * The first page of a text search also gets the best match of every other scope of the same
   * project that has been stored to: cross-scope leakage in relevance results only.
   */
  static SgmClient leaksOtherScopesIntoRelevance(SgmClient real) {
    Set<JsonNode> scopes = ConcurrentHashMap.newKeySet();
    return (operation, request) -> {
      if (operation.equals("store")) {
        scopes.add(request.path("record").path("scope").deepCopy());
      } else if (operation.equals("store_batch")) {
        request.path("records").forEach(r -> scopes.add(r.path("scope").deepCopy()));
      }
      JsonNode response = real.call(operation, request);
      if (!isTextSearch(operation, request) || request.has("cursor")) {
        return response;
      }
      ObjectNode result = (ObjectNode) response;
      JsonNode project = request.path("scope").path("project");
      for (JsonNode scope : scopes) {
        if (scope.equals(request.path("scope")) || !scope.path("project").equals(project)) {
          continue;
        }
        ObjectNode other = ((ObjectNode) request).deepCopy();
        other.set("scope", scope);
        other.remove("scope_mode");
        other.put("limit", 1);
        JsonNode best = real.call(operation, other);
        if (best.path("records").has(0)) {
          result.withArray("records").insert(0, best.path("records").get(0));
          if (result.has("scores")) {
            result.withArray("scores").insert(0, best.path("scores").path(0));
          }
          result.put("total", result.path("total").asLong() + 1);
        }
      }
      return response;
    };
  }

  /**
   * Relevance pages by position rather than by a cursor into a snapshot: records that rank first
   * and arrive between pages push others back onto the next page, which repeats them.
   */
  static SgmClient pagesByOffset(SgmClient real) {
    String prefix = "offset:";
    return (operation, request) -> {
      if (!isTextSearch(operation, request)) {
        return real.call(operation, request);
      }
      ObjectNode query = ((ObjectNode) request).deepCopy();
      String cursor = query.path("cursor").asText("");
      int offset =
          cursor.startsWith(prefix) ? Integer.parseInt(cursor.substring(prefix.length())) : 0;
      int limit = query.path("limit").asInt(50);
      query.remove("cursor");
      query.put("limit", offset + limit);
      ObjectNode result = (ObjectNode) real.call(operation, query);
      ArrayNode records = Json.array();
      ArrayNode scores = Json.array();
      for (int i = offset; i < Math.min(offset + limit, result.path("records").size()); i++) {
        records.add(result.path("records").get(i));
        if (result.path("scores").has(i)) {
          scores.add(result.path("scores").get(i));
        }
      }
      result.set("records", records);
      if (result.has("scores")) {
        result.set("scores", scores);
      }
      result.remove("next_cursor");
      if (offset + limit < result.path("total").asLong()) {
        result.put("next_cursor", prefix + (offset + limit));
      }
      return result;
    };
  }

  /** Blank {@code text} is treated as no text at all instead of being refused. */
  static SgmClient acceptsBlankText(SgmClient real) {
    return (operation, request) -> {
      if (operation.equals("retrieve")
          && request.path("text").isTextual()
          && request.path("text").asText().isBlank()) {
        ObjectNode query = ((ObjectNode) request).deepCopy();
        query.remove("text");
        return real.call(operation, query);
      }
      return real.call(operation, request);
    };
  }

  /**
   * The index adds a record's new words but never drops its old ones: an updated record is still
   * found by what it used to say.
   */
  static SgmClient keepsOldWordsAfterUpdates(SgmClient real) {
    Map<String, Set<String>> oldWords = new ConcurrentHashMap<>();
    return (operation, request) -> {
      if (operation.equals("store")) {
        JsonNode record = request.path("record");
        String key = Json.write(record.path("scope")) + "\u0000" + record.path("id").asText();
        try {
          ObjectNode read = Json.object();
          read.set("scope", record.path("scope"));
          read.set("id", record.path("id"));
          String before = real.call("read", read).path("record").path("content").asText("");
          oldWords.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).addAll(words(before));
        } catch (SgmException e) {
          // Not stored yet (or deleted): nothing old to remember.
        }
        return real.call(operation, request);
      }
      JsonNode response = real.call(operation, request);
      if (!isTextSearch(operation, request) || request.has("cursor")) {
        return response;
      }
      ObjectNode result = (ObjectNode) response;
      Set<String> asked = words(request.path("text").asText());
      String scope = Json.write(request.path("scope"));
      for (Map.Entry<String, Set<String>> entry : oldWords.entrySet()) {
        String[] key = entry.getKey().split("\u0000", 2);
        if (!key[0].equals(scope)
            || ids(result).contains(key[1])
            || asked.stream().noneMatch(entry.getValue()::contains)) {
          continue;
        }
        try {
          ObjectNode read = Json.object();
          read.set("scope", request.path("scope"));
          read.put("id", key[1]);
          result.withArray("records").add(real.call("read", read).path("record"));
          if (result.has("scores")) {
            result.withArray("scores").add(0);
          }
          result.put("total", result.path("total").asLong() + 1);
        } catch (SgmException e) {
          // Deleted since: nothing to return.
        }
      }
      return response;
    };
  }

  /**
   * A feed that resumes one event too early: the last event of a response comes again at the head
   * of the response resumed from its {@code next} (an off-by-one in the resume position).
   */
  static SgmClient repeatsTheLastEventOnResume(SgmClient real) {
    Map<String, JsonNode> lastBefore = new ConcurrentHashMap<>();
    return (operation, request) -> {
      JsonNode response = real.call(operation, request);
      if (!operation.equals("changes")) {
        return response;
      }
      ObjectNode result = (ObjectNode) response;
      JsonNode repeated = lastBefore.get(request.path("since").asText(""));
      ArrayNode events = (ArrayNode) result.get("events");
      if (repeated != null) {
        events.insert(0, repeated);
      }
      if (!events.isEmpty()) {
        lastBefore.put(result.path("next").asText(), events.get(events.size() - 1));
      }
      return result;
    };
  }

  /** A feed whose default scope mode is descendants rather than exact. */
  static SgmClient followsDescendantsByDefault(SgmClient real) {
    return (operation, request) -> {
      if (operation.equals("changes") && request.isObject() && !request.has("scope_mode")) {
        ((ObjectNode) request).put("scope_mode", "descendants");
      }
      return real.call(operation, request);
    };
  }

  /** A feed that reads an unreadable cursor as "the present" instead of refusing it. */
  static SgmClient readsBadCursorsAsThePresent(SgmClient real) {
    return (operation, request) -> {
      try {
        return real.call(operation, request);
      } catch (SgmException e) {
        if (!operation.equals("changes")
            || e.code() != ErrorCode.INVALID_REQUEST
            || e.details().stream().noneMatch(d -> d.field().equals("since"))) {
          throw e;
        }
        ObjectNode present = ((ObjectNode) request).deepCopy();
        present.remove("since");
        return real.call(operation, present);
      }
    };
  }

  private static Set<String> ids(JsonNode result) {
    Set<String> ids = new HashSet<>();
    result.path("records").forEach(r -> ids.add(r.path("id").asText()));
    return ids;
  }

  /**
   * Checks grants on {@code read} but not on a retrieve with {@code descendants}: that retrieve is
   * answered as the owner would be answered.
   */
  static SgmClient skipsGrantsOnDescendants(SgmClient reader, SgmClient owner) {
    return (operation, request) ->
        operation.equals("retrieve") && request.path("scope_mode").asText().equals("descendants")
            ? owner.call(operation, request)
            : reader.call(operation, request);
  }

  /** Keeps the records to the grants but counts every match in {@code total}. */
  static SgmClient leaksThroughTotal(SgmClient reader, SgmClient owner) {
    return (operation, request) -> {
      JsonNode answer = reader.call(operation, request);
      if (operation.equals("retrieve") && !request.has("cursor")) {
        ((ObjectNode) answer).set("total", owner.call(operation, request).path("total"));
      }
      return answer;
    };
  }

  /**
   * A principal's snapshots.retrieve answered by the owner and then shaped for the principal (its
   * unreadable scopes dropped, what is above its clearance redacted): matching happened on what
   * clearance withholds.
   */
  static SgmClient snapshotsMatchWithheldText(SgmClient principal, SgmClient owner) {
    return (operation, request) -> {
      if (!operation.equals("snapshots.retrieve")) {
        return principal.call(operation, request);
      }
      principal.call(operation, request); // the real refusals (an unreadable scope) still apply
      JsonNode whoami = principal.call("whoami", Json.object());
      List<String> levels = List.of("public", "internal", "confidential", "secret");
      int clearance = levels.indexOf(whoami.path("clearance").asText());
      ObjectNode answer = (ObjectNode) owner.call(operation, request);
      ArrayNode kept = Json.array();
      for (JsonNode record : answer.path("records")) {
        ObjectNode copy = (ObjectNode) record.deepCopy();
        int level = levels.indexOf(record.path("sensitivity").path("level").asText("public"));
        if (level > clearance) {
          copy.remove(List.of("content", "data", "reference"));
          copy.put("redacted", true);
        }
        if (readable(whoami, copy.path("scope"))) {
          kept.add(copy);
        }
      }
      answer.set("records", kept);
      answer.put("total", kept.size());
      return answer;
    };
  }

  /** Whether {@code whoami}'s grants cover {@code scope}. */
  private static boolean readable(JsonNode whoami, JsonNode scope) {
    for (JsonNode grant : whoami.path("grants")) {
      boolean covers = true;
      for (var pair : grant.path("scope").properties()) {
        covers &= pair.getValue().equals(scope.get(pair.getKey()));
      }
      if (covers) {
        return true;
      }
    }
    return false;
  }

  /** The change feed reached without the principal's token: the owner's view of every scope. */
  static SgmClient feedWithoutTheToken(SgmClient principal, SgmClient owner) {
    return (operation, request) ->
        operation.equals("changes")
            ? owner.call(operation, request)
            : principal.call(operation, request);
  }

  /**
   * Handoff moves that look at the state before the clearance: a handoff not in the state the move
   * needs answers conflict, whatever its level.
   */
  static SgmClient handoffStateBeforeClearance(SgmClient principal, SgmClient owner) {
    return (operation, request) -> {
      if (operation.equals("handoffs.accept") || operation.equals("handoffs.complete")) {
        ObjectNode read = Json.object();
        read.set("scope", request.path("scope"));
        read.put("id", request.path("id").asText());
        String state;
        try {
          state = owner.call("read", read).path("record").path("data").path("state").asText("open");
        } catch (SgmException e) {
          return principal.call(operation, request);
        }
        String needed = operation.equals("handoffs.accept") ? "open" : "accepted";
        if (!state.equals(needed)) {
          throw new SgmException(ErrorCode.CONFLICT, "handoff is " + state + ", not " + needed);
        }
      }
      return principal.call(operation, request);
    };
  }
}
