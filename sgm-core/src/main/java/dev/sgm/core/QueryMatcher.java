package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.StorageQuery.Position;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A retrieve over records held in memory, for past states that are not in the live index
 * (snapshots). It derives every criterion from {@link RecordIndexer}, as the store's index is, so a
 * record matches here exactly when it would match in the store. Past states do not change, so pages
 * are cut by offset.
 */
final class QueryMatcher {
  private final RetrieveQuery query;
  private final RecordIndexer indexer = new RecordIndexer();
  private final List<String> terms;

  QueryMatcher(RetrieveQuery query) {
    this.query = query;
    this.terms =
        query.text() == null
            ? List.of()
            : List.copyOf(new LinkedHashSet<>(RecordIndexer.terms(query.text())));
  }

  private record Match(MemoryRecord record, long sortValue, long createdMicros, String key) {}

  RetrieveResult page(List<MemoryRecord> candidates) {
    List<Match> matches = new ArrayList<>();
    for (MemoryRecord record : candidates) {
      Long score = score(record);
      if (score != null) {
        long sort =
            switch (query.orderBy()) {
              case RELEVANCE -> terms.isEmpty() ? micros(record.updatedAt()) : score;
              case CREATED_AT -> micros(record.createdAt());
              case UPDATED_AT -> micros(record.updatedAt());
            };
        matches.add(new Match(record, sort, micros(record.createdAt()), record.qualifiedId()));
      }
    }
    Comparator<Match> order =
        Comparator.comparingLong(Match::sortValue)
            .thenComparingLong(Match::createdMicros)
            .thenComparing(Match::key);
    matches.sort(query.ascending() ? order : order.reversed());
    int offset = query.cursor() == null ? 0 : (int) Cursors.decode(query).after().rowKey();
    int end = Math.min(matches.size(), offset + query.limit());
    List<MemoryRecord> page = new ArrayList<>();
    for (int i = offset; i < end; i++) {
      page.add(matches.get(i).record());
    }
    String next = end < matches.size() ? Cursors.encode(query, new Position(0, end), 0) : null;
    return new RetrieveResult(page, matches.size(), next);
  }

  /** The record's text score when it matches every criterion (0 without text), else null. */
  private Long score(MemoryRecord record) {
    if (!query.scopeMode().covers(query.scope(), record.scope())
        || (!query.ids().isEmpty() && !query.ids().contains(record.id()))
        || (!query.types().isEmpty() && !query.types().contains(record.type()))) {
      return null;
    }
    RecordIndex index = indexer.index(record.view());
    if (!query.tags().isEmpty()) {
      Set<String> tags = new HashSet<>(index.tags());
      boolean tagged =
          switch (query.tagsMode()) {
            case ALL -> tags.containsAll(query.tags());
            case ANY -> query.tags().stream().anyMatch(tags::contains);
          };
      if (!tagged) {
        return null;
      }
    }
    if (!query.filter().isEmpty()) {
      Set<RecordIndex.FieldValue> fields = new HashSet<>(index.fields());
      for (Map.Entry<String, JsonNode> filter : query.filter().entrySet()) {
        if (!fields.contains(
            new RecordIndex.FieldValue(
                filter.getKey(), RecordIndexer.normalise(filter.getValue())))) {
          return null;
        }
      }
    }
    long created = micros(record.createdAt());
    long updated = micros(record.updatedAt());
    if ((query.createdAfter() != null && created <= Timestamps.toMicros(query.createdAfter()))
        || (query.createdBefore() != null && created >= Timestamps.toMicros(query.createdBefore()))
        || (query.updatedAfter() != null && updated <= Timestamps.toMicros(query.updatedAfter()))) {
      return null;
    }
    long score = 0;
    for (String term : terms) {
      Integer weight = index.terms().get(term);
      if (weight == null) {
        return null;
      }
      score += weight;
    }
    return score;
  }

  private static long micros(java.time.Instant instant) {
    return instant == null ? 0 : Timestamps.toMicros(instant);
  }
}
