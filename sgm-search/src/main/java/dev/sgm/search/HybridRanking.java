package dev.sgm.search;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Ranking by words and by meaning at once: each candidate list normalised into [0, 1] within its
 * bounds, then averaged, the bounds frozen on the first page so that later pages rank alike.
 */
final class HybridRanking {
  private HybridRanking() {}

  /** A page of a hybrid search. */
  static SearchResult rank(PreparedSearch search) throws IOException {
    SearchQuery q = search.query();
    int depth = Math.max(SearchIndex.HYBRID_DEPTH, q.offset() + q.limit() + 1);
    Map<Long, Double> lexical = lexical(search, depth);
    Map<Long, Double> dense = VectorRanking.dense(search, depth);
    double[] bounds =
        q.frozen() != null && q.frozen().bounds() != null
            ? q.frozen().bounds()
            : new double[] {
              min(lexical, SearchIndex.HYBRID_DEPTH),
              max(lexical),
              min(dense, SearchIndex.HYBRID_DEPTH),
              max(dense)
            };
    Map<Long, Double> fused = new HashMap<>();
    for (Map.Entry<Long, Double> e : lexical.entrySet()) {
      fused.merge(e.getKey(), 0.5 * normalise(e.getValue(), bounds[0], bounds[1]), Double::sum);
    }
    for (Map.Entry<Long, Double> e : dense.entrySet()) {
      fused.merge(e.getKey(), 0.5 * normalise(e.getValue(), bounds[2], bounds[3]), Double::sum);
    }
    VectorRanking.addUnembedded(search, depth - dense.size(), fused);
    return ScoredPage.of(
        q,
        fused,
        search.searcher().count(search.filter()),
        new SearchQuery.Frozen(search.used(), bounds),
        search.truncated());
  }

  /** The top {@code depth} records by words, best first; none when the text has no terms. */
  private static Map<Long, Double> lexical(PreparedSearch search, int depth) throws IOException {
    Map<Long, Double> lexical = new LinkedHashMap<>();
    if (!search.terms().isEmpty()) {
      for (TopRelevance.Hit hit :
          search
              .searcher()
              .search(TextQuery.filtered(search), new TopRelevance(IndexFields.ROW, depth, null))) {
        lexical.put(hit.rowKey(), (double) hit.score());
      }
    }
    return lexical;
  }

  private static double min(Map<Long, Double> scores, int within) {
    double min = Double.POSITIVE_INFINITY;
    int seen = 0;
    for (double v : scores.values()) {
      if (seen++ == within) {
        break;
      }
      min = Math.min(min, v);
    }
    return scores.isEmpty() ? 0 : min;
  }

  private static double max(Map<Long, Double> scores) {
    return scores.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }

  /** Min–max normalisation into [0, 1]; a single score (min = max) counts fully. */
  private static double normalise(double value, double min, double max) {
    if (max <= min) {
      return value >= max ? 1 : 0;
    }
    return Math.max(0, Math.min(1, (value - min) / (max - min)));
  }
}
