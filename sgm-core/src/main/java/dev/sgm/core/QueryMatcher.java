package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.StorageQuery.Position;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.search.SearchIndex;
import dev.sgm.search.SearchQuery;
import dev.sgm.search.SearchResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A retrieve over records held in memory, for past states that are not in the live index
 * (snapshots). It derives every criterion from {@link RecordIndexer}, as the store's index is, and
 * ranks text with the same analysis and scoring as the search index (an index of the candidates
 * made for the query), so a record matches here exactly when it would match in the store. Past
 * states do not change, so pages are cut by offset.
 */
final class QueryMatcher {
  private final RetrieveQuery query;
  private final RecordIndexer indexer = new RecordIndexer();

  QueryMatcher(RetrieveQuery query) {
    this.query = query;
  }

  private record Match(MemoryRecord record, double sortValue, long createdMicros, String key) {}

  RetrieveResult page(List<MemoryRecord> candidates) {
    Map<Integer, Double> textScores = query.text() == null ? null : textScores(candidates);
    List<Match> matches = new ArrayList<>();
    for (int i = 0; i < candidates.size(); i++) {
      MemoryRecord record = candidates.get(i);
      Double text = textScores == null ? Double.valueOf(0) : textScores.get(i);
      if (text != null && matches(record)) {
        double sort =
            switch (query.orderBy()) {
              case RELEVANCE -> textScores == null ? micros(record.updatedAt()) : text;
              case CREATED_AT -> micros(record.createdAt());
              case UPDATED_AT -> micros(record.updatedAt());
            };
        matches.add(new Match(record, sort, micros(record.createdAt()), record.qualifiedId()));
      }
    }
    Comparator<Match> order =
        Comparator.comparingDouble(Match::sortValue)
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

  /** The text score of each candidate (by position) that matches the query's text. */
  private Map<Integer, Double> textScores(List<MemoryRecord> candidates) {
    Map<Integer, Double> scores = new HashMap<>();
    try (SearchIndex index = SearchIndex.inMemory()) {
      for (int i = 0; i < candidates.size(); i++) {
        MemoryRecord record = candidates.get(i);
        StoredRecord row =
            new StoredRecord(
                record.scope(),
                record.id(),
                record.type(),
                record.version(),
                micros(record.createdAt()),
                micros(record.updatedAt()),
                false,
                record.text(),
                RecordIndex.NONE,
                i + 1,
                0);
        index.put(IndexDocuments.of(row, record.view(), null, 0));
      }
      index.refresh();
      SearchResult found =
          index.search(
              SearchQuery.of(query.text(), SearchQuery.Ranking.TEXT, Math.max(1, candidates.size()))
                  .build());
      found.hits().forEach(hit -> scores.put((int) hit.rowKey() - 1, hit.value()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return scores;
  }

  /** Whether the record meets every criterion but the text. */
  private boolean matches(MemoryRecord record) {
    if (!query.scopeMode().covers(query.scope(), record.scope())
        || (!query.ids().isEmpty() && !query.ids().contains(record.id()))
        || (!query.types().isEmpty() && !query.types().contains(record.type()))) {
      return false;
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
        return false;
      }
    }
    if (!query.filter().isEmpty()) {
      Set<RecordIndex.FieldValue> fields = new HashSet<>(index.fields());
      for (Map.Entry<String, JsonNode> filter : query.filter().entrySet()) {
        if (!fields.contains(
            new RecordIndex.FieldValue(
                filter.getKey(), RecordIndexer.normalise(filter.getValue())))) {
          return false;
        }
      }
    }
    long created = micros(record.createdAt());
    long updated = micros(record.updatedAt());
    return (query.createdAfter() == null || created > Timestamps.toMicros(query.createdAfter()))
        && (query.createdBefore() == null || created < Timestamps.toMicros(query.createdBefore()))
        && (query.updatedAfter() == null || updated > Timestamps.toMicros(query.updatedAfter()));
  }

  private static long micros(java.time.Instant instant) {
    return instant == null ? 0 : Timestamps.toMicros(instant);
  }
}
