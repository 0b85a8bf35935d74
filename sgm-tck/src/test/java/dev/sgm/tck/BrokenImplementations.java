package dev.sgm.tck;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

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
}
