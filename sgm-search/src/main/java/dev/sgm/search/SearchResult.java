package dev.sgm.search;

import java.util.List;

/**
 * One page of hits in order, the count of every match, and what the next page needs.
 *
 * @param total every record that passes the filters and matches (see the contract's relevance
 *     rules)
 * @param more whether another page follows
 * @param frozen the ranking state the next page must reuse
 * @param truncatedTerms how many analysed query terms were left out for being too many, or 0
 */
public record SearchResult(
    List<Hit> hits, long total, boolean more, SearchQuery.Frozen frozen, int truncatedTerms) {
  /** One matching record: its row key and its score (or sort time). */
  public record Hit(long rowKey, double value) {}

  public SearchResult {
    hits = List.copyOf(hits);
  }
}
