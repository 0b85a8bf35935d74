package dev.sgm.search;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One page of records scored outside Lucene's collectors (by meaning, or fused), best first, ties
 * by row key, after the previous page's last hit.
 */
final class ScoredPage {
  private ScoredPage() {}

  /**
   * The page after {@code q.after()} of {@code scores}, best first, ties by row key; {@code frozen}
   * is what the next page must rank with.
   */
  static SearchResult of(
      SearchQuery q,
      Map<Long, Double> scores,
      long total,
      SearchQuery.Frozen frozen,
      int truncated) {
    List<Map.Entry<Long, Double>> ranked = new ArrayList<>(scores.entrySet());
    Comparator<Map.Entry<Long, Double>> best =
        Comparator.<Map.Entry<Long, Double>>comparingDouble(Map.Entry::getValue)
            .thenComparingLong(Map.Entry::getKey)
            .reversed();
    ranked.sort(best);
    List<SearchResult.Hit> hits = new ArrayList<>();
    boolean more = false;
    for (Map.Entry<Long, Double> e : ranked) {
      if (q.after() != null && !isAfter(e.getValue(), e.getKey(), q.after())) {
        continue;
      }
      if (hits.size() == q.limit()) {
        more = true;
        break;
      }
      hits.add(new SearchResult.Hit(e.getKey(), e.getValue()));
    }
    return new SearchResult(hits, total, more, frozen, truncated);
  }

  private static boolean isAfter(double value, long row, SearchQuery.After after) {
    return value < after.value() || (value == after.value() && row < after.rowKey());
  }
}
