package dev.sgm.search;

import java.io.IOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Query;

/**
 * Ranking by words and by meaning at once: each record that holds one of the query's words or
 * matches it by meaning scores the weighted sum of the two on {@link Relevance}'s shared scale,
 * among the closest by meaning and the top candidates by words; a record that does neither is not
 * an answer.
 *
 * <p>The closest come first, each scored by words too. A record outside them is no closer than the
 * last of them, so it can reach the page only on a words score high enough to beat the page's last
 * candidate so far; the search by words is told that score and skips every record below it. A
 * question whose closest records already fill the page then reads few of the records that hold its
 * words, however common they are.
 *
 * <p>The closest come from an approximate neighbour graph, which can miss a record closer than the
 * last of them; such a record is then a candidate only if its words alone would place it on the
 * page, where before it was one whenever it was among the best hundred by words. A graph search
 * typically misses records near the last of the closest, for which the bound nearly holds.
 */
final class HybridRanking {
  private HybridRanking() {}

  /** A page of a hybrid search. */
  static SearchResult rank(PreparedSearch search) throws IOException {
    SearchQuery q = search.query();
    int depth = Math.max(SearchIndex.HYBRID_DEPTH, q.offset() + q.limit() + 1);
    boolean hasTerms = !search.terms().isEmpty();
    MeaningScale scale = q.scale();
    // Each candidate's document in the searcher's reader, to look at the candidates alone later.
    Map<Long, Integer> docs = new HashMap<>();
    Map<Long, Double> closest = VectorRanking.closest(search, depth, docs);
    double idfSum = hasTerms ? Relevance.idfSum(search) : 0;
    // The closest that hold a word, with their BM25 scores.
    Map<Long, Double> closestByWords =
        hasTerms ? byWords(search, docsOf(closest.keySet(), docs)) : Map.of();
    Map<Long, Double> meaning =
        VectorRanking.matching(
            search,
            closest,
            docs,
            () -> !closestByWords.isEmpty() || VectorRanking.holdsAWord(search));
    Map<Long, Double> fused = new HashMap<>();
    meaning.forEach((row, score) -> fused.put(row, scale.meaningWeight() * score));
    closestByWords.forEach(
        (row, bm25) -> fused.merge(row, wordsPart(bm25, idfSum, scale), Double::sum));

    Map<Long, Double> lexical = new HashMap<>();
    // Whether the search by words found every record holding a word.
    boolean everyHolderFound = false;
    if (hasTerms) {
      // No record outside the closest is closer than the last of them (none is embedded when they
      // are fewer than asked for).
      double meaningBound =
          closest.size() < depth
              ? 0
              : scale.meaning(Relevance.cosine(Collections.min(closest.values())));
      // With the caller's floor, total counts every candidate at or above it, on the page or not,
      // and none below.
      double pageFloor = q.minScore() > 0 ? q.minScore() : lastOfPage(q, fused);
      // Less a little, so that rounding never loses a record on the boundary.
      double wordsNeeded =
          (pageFloor - scale.meaningWeight() * meaningBound) / scale.wordsWeight() - 1e-9;
      if (wordsNeeded < 1) {
        float wordsFloor = bm25AtLeast(wordsNeeded, idfSum);
        lexical = topByWords(search, depth, wordsFloor, docs);
        everyHolderFound = wordsFloor == Float.NEGATIVE_INFINITY && lexical.size() < depth;
      }
    }
    Set<Long> byWordsOnly = new HashSet<>(lexical.keySet());
    byWordsOnly.removeAll(closest.keySet());
    VectorRanking.matchingByMeaning(search, docsOf(byWordsOnly, docs))
        .forEach((row, score) -> fused.put(row, scale.meaningWeight() * score));
    for (Long row : byWordsOnly) {
      fused.merge(row, wordsPart(lexical.get(row), idfSum, scale), Double::sum);
    }

    long total;
    if (q.minScore() > 0) {
      // A raised floor counts among the candidates: past them no score is known.
      fused.values().removeIf(score -> score < q.minScore());
      total = fused.size();
    } else {
      // Every record holding a word counts, past the candidates too (the text query's count), and
      // each record that matches by meaning alone.
      long byMeaningOnly =
          meaning.keySet().stream().filter(row -> !closestByWords.containsKey(row)).count();
      long holdingAWord = 0;
      if (hasTerms) {
        holdingAWord =
            everyHolderFound ? lexical.size() : search.searcher().count(TextQuery.filtered(search));
      }
      total = holdingAWord + byMeaningOnly;
    }
    return ScoredPage.of(
        q, fused, total, new SearchQuery.Frozen(search.used()), search.truncated());
  }

  private static double wordsPart(double bm25, double idfSum, MeaningScale scale) {
    return scale.wordsWeight() * Relevance.words(bm25, idfSum);
  }

  /**
   * The score of the last hit the page could show among {@code fused} (the one past the page
   * included, which tells whether more follow), or 0 when they are too few to fill it.
   */
  private static double lastOfPage(SearchQuery q, Map<Long, Double> fused) {
    int needed = q.limit() + 1;
    PriorityQueue<Double> best = new PriorityQueue<>(needed + 1);
    fused.forEach(
        (row, score) -> {
          SearchQuery.After after = q.after();
          if (after == null
              || score < after.value()
              || (score == after.value() && row < after.rowKey())) {
            best.add(score);
            if (best.size() > needed) {
              best.poll();
            }
          }
        });
    return best.size() < needed ? 0 : best.peek();
  }

  /**
   * The lowest BM25 score whose words part ({@link Relevance#words}) is at least {@code share},
   * rounded down to a float; minus infinity when any score is.
   */
  private static float bm25AtLeast(double share, double idfSum) {
    if (share <= 0) {
      return Float.NEGATIVE_INFINITY;
    }
    double bm25 = share * Relevance.WORDS_HALF * idfSum / (1 - share);
    return Math.nextDown((float) (bm25 * (1 - 1e-6)));
  }

  private static int[] docsOf(Set<Long> rows, Map<Long, Integer> docs) {
    return rows.stream().mapToInt(docs::get).toArray();
  }

  /** The BM25 scores of those of {@code docs} that hold one of the search's words. */
  private static Map<Long, Double> byWords(PreparedSearch search, int[] docs) throws IOException {
    Map<Long, Double> scores = new HashMap<>();
    if (docs.length == 0) {
      return scores;
    }
    Query theseDocs =
        new BooleanQuery.Builder()
            .add(TextQuery.filtered(search), BooleanClause.Occur.MUST)
            .add(new DocsQuery(docs), BooleanClause.Occur.FILTER)
            .build();
    for (TopRelevance.Hit hit :
        search.searcher().search(theseDocs, new TopRelevance(IndexFields.ROW, docs.length, null))) {
      scores.put(hit.rowKey(), (double) hit.score());
    }
    return scores;
  }

  /**
   * The top {@code depth} records by words (BM25) among those scoring at least {@code minScore},
   * with their documents put in {@code docs}.
   */
  private static Map<Long, Double> topByWords(
      PreparedSearch search, int depth, float minScore, Map<Long, Integer> docs)
      throws IOException {
    Map<Long, Double> lexical = new HashMap<>();
    for (TopRelevance.Hit hit :
        search
            .searcher()
            .search(
                TextQuery.filtered(search),
                new TopRelevance(IndexFields.ROW, depth, null, minScore))) {
      lexical.put(hit.rowKey(), (double) hit.score());
      docs.put(hit.rowKey(), hit.doc());
    }
    return lexical;
  }
}
