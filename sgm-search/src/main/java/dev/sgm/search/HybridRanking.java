package dev.sgm.search;

import java.io.IOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;

/**
 * Ranking by words and by meaning at once: each record that holds one of the query's words or
 * matches it by meaning scores the average of the two on {@link Relevance}'s shared scale, among
 * the top candidates of each (a candidate by words is compared by meaning too, closest or not); a
 * record that does neither is not an answer.
 */
final class HybridRanking {
  private HybridRanking() {}

  /** A page of a hybrid search. */
  static SearchResult rank(PreparedSearch search) throws IOException {
    SearchQuery q = search.query();
    int depth = Math.max(SearchIndex.HYBRID_DEPTH, q.offset() + q.limit() + 1);
    // Each candidate's document in the searcher's reader, to look at the candidates alone later.
    Map<Long, Integer> docs = new HashMap<>();
    Map<Long, Double> lexical = lexical(search, depth, docs);
    Map<Long, Double> meaning =
        VectorRanking.matchingByMeaning(search, depth, !lexical.isEmpty(), docs);
    Set<Long> notAmongTheClosest = new HashSet<>(lexical.keySet());
    notAmongTheClosest.removeAll(meaning.keySet());
    meaning.putAll(VectorRanking.matchingByMeaning(search, docsOf(notAmongTheClosest, docs)));
    double idfSum = lexical.isEmpty() ? 0 : Relevance.idfSum(search);
    Map<Long, Double> fused = new HashMap<>();
    for (Map.Entry<Long, Double> e : lexical.entrySet()) {
      fused.merge(
          e.getKey(),
          (1 - Relevance.MEANING_WEIGHT) * Relevance.words(e.getValue(), idfSum),
          Double::sum);
    }
    meaning.forEach(
        (row, score) -> fused.merge(row, Relevance.MEANING_WEIGHT * score, Double::sum));
    Set<Long> meaningOnly = new HashSet<>(meaning.keySet());
    meaningOnly.removeAll(lexical.keySet());
    long byMeaningOnly = meaningOnly.size();
    long total;
    if (q.minScore() > 0) {
      // A raised floor counts among the candidates: past them no score is known.
      fused.values().removeIf(score -> score < q.minScore());
      total = fused.size();
    } else {
      // Every record holding a word counts, past the candidates too (the text query's count).
      long byWords = lexical.size();
      if (lexical.size() >= depth) {
        byWords = search.searcher().count(TextQuery.filtered(search));
        // Past the word candidates, a record found by meaning may hold a word too: it is counted
        // once, among those holding a word.
        byMeaningOnly -= holdingAWord(search, docsOf(meaningOnly, docs));
      }
      total = byWords + byMeaningOnly;
    }
    return ScoredPage.of(
        q, fused, total, new SearchQuery.Frozen(search.used()), search.truncated());
  }

  private static int[] docsOf(Set<Long> rows, Map<Long, Integer> docs) {
    return rows.stream().mapToInt(docs::get).toArray();
  }

  /** How many of {@code docs} hold one of the search's words. */
  private static long holdingAWord(PreparedSearch search, int[] docs) throws IOException {
    if (docs.length == 0) {
      return 0;
    }
    return search
        .searcher()
        .count(
            new BooleanQuery.Builder()
                .add(new DocsQuery(docs), BooleanClause.Occur.FILTER)
                .add(TextQuery.filtered(search), BooleanClause.Occur.FILTER)
                .build());
  }

  /**
   * The top {@code depth} records by words (BM25), best first, with their documents put in {@code
   * docs}; none when the text has no terms.
   */
  private static Map<Long, Double> lexical(
      PreparedSearch search, int depth, Map<Long, Integer> docs) throws IOException {
    Map<Long, Double> lexical = new LinkedHashMap<>();
    if (!search.terms().isEmpty()) {
      for (TopRelevance.Hit hit :
          search
              .searcher()
              .search(TextQuery.filtered(search), new TopRelevance(IndexFields.ROW, depth, null))) {
        lexical.put(hit.rowKey(), (double) hit.score());
        docs.put(hit.rowKey(), hit.doc());
      }
    }
    return lexical;
  }
}
