package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.RequestReader;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoredRecord;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The {@code scopes} operation: every scope that holds live records, with how many of each type,
 * among the scopes the caller may read. The counts come from one pass over the live rows, kept
 * until the next commit, so a console that lists the tree after every page costs one scan per burst
 * of writes, not one per request.
 */
final class ScopeCensus {
  static final int DEFAULT_LIMIT = 1000;
  static final int MAX_LIMIT = 10_000;
  private static final int SCAN_BATCH = 1000;

  /** Live records per scope and type, as of a committed sequence. */
  private record Counts(long sequence, Map<Scope, Map<String, Long>> byScope) {}

  private final Storage storage;
  private volatile Counts counts;

  ScopeCensus(Storage storage) {
    this.storage = storage;
  }

  JsonNode run(Caller caller, JsonNode request) {
    RequestReader r = RequestReader.of(request == null ? Json.object() : request);
    Scope within = r.raw("scope") == null ? null : r.requireScope("scope");
    Long limit = r.optionalLong("limit", 1, MAX_LIMIT);
    r.finish();
    int max = limit == null ? DEFAULT_LIMIT : limit.intValue();
    List<Map.Entry<Scope, Map<String, Long>>> visible =
        current().byScope().entrySet().stream()
            .filter(e -> within == null || ScopeMode.DESCENDANTS.covers(within, e.getKey()))
            .filter(e -> caller.grants().canRead(e.getKey()))
            .sorted(Comparator.comparing(e -> e.getKey().canonical()))
            .toList();
    ObjectNode json = Json.object();
    ArrayNode scopes = json.putArray("scopes");
    long total = 0;
    for (Map.Entry<Scope, Map<String, Long>> entry : visible) {
      long records = entry.getValue().values().stream().mapToLong(Long::longValue).sum();
      total += records;
      if (scopes.size() < max) {
        ObjectNode item = scopes.addObject();
        item.set("scope", entry.getKey().toJson());
        item.put("records", records);
        ObjectNode types = item.putObject("types");
        new TreeMap<>(entry.getValue()).forEach(types::put);
      }
    }
    json.put("total_scopes", visible.size());
    json.put("total_records", total);
    return json;
  }

  /** The counts as of the latest commit: the kept ones when nothing was committed since. */
  private Counts current() {
    long sequence = storage.committedSequence();
    Counts kept = counts;
    if (kept != null && kept.sequence() == sequence) {
      return kept;
    }
    Map<Scope, Map<String, Long>> byScope = new HashMap<>();
    long after = 0;
    while (true) {
      List<StoredRecord> rows = storage.scanLive(after, SCAN_BATCH);
      if (rows.isEmpty()) {
        break;
      }
      for (StoredRecord row : rows) {
        after = row.rowKey();
        byScope.computeIfAbsent(row.scope(), s -> new HashMap<>()).merge(row.type(), 1L, Long::sum);
      }
    }
    // Tagged with the sequence read before the scan: a commit during it only causes a rescan.
    Counts fresh = new Counts(sequence, byScope);
    counts = fresh;
    return fresh;
  }
}
