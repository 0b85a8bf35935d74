package dev.sgm.search;

import java.io.IOException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermStatistics;

/**
 * The scale that semantic and hybrid scores share, in [0, 1] and comparable across queries, and the
 * floors below which a record matches nothing by meaning. Each part is absolute rather than
 * normalised within a query's own candidates, so that the best candidate of a question about
 * nothing stored does not score as high as the best answer to a good one.
 *
 * <p>By meaning: {@code (cosine - RECORD_FLOOR) / (1 - RECORD_FLOOR)}, 0 at the floor and 1 for a
 * text identical in meaning. By words: {@code bm25 / (bm25 + WORDS_HALF * Σ idf)}, where Σ idf is
 * the most a record could score for the query's words (Lucene's BM25 gives a word at most its idf);
 * a record scores 0.5 when it holds about half of what the query asks for. Hybrid averages the two.
 * The floors and the half point were chosen on data (docs/spec/retrieval.md says how).
 */
public final class Relevance {
  /**
   * The cosine similarity below which a record matches nothing by meaning: it is returned only if
   * it holds one of the query's words.
   */
  public static final double RECORD_FLOOR = 0.5;

  /**
   * The cosine similarity the best record of the searched scopes must reach for a query none of
   * whose words they hold to match anything there by meaning: below it, the question is about
   * nothing stored. (A model of this size finds some likeness in any two texts; a held word is
   * evidence enough that the question is about something there.)
   */
  public static final double QUERY_FLOOR = 0.6;

  /** The share of the query's Σ idf at which a record scores 0.5 by words. */
  static final double WORDS_HALF = 0.5;

  /** The weight of meaning in a hybrid score; words have the rest. */
  static final double MEANING_WEIGHT = 0.5;

  private Relevance() {}

  /** The cosine similarity of a DOT_PRODUCT vector hit's score ({@code (1 + dot) / 2}). */
  static double cosine(double vectorScore) {
    return 2 * vectorScore - 1;
  }

  /** A cosine similarity on the shared scale. */
  static double meaning(double cosine) {
    return Math.max(0, Math.min(1, (cosine - RECORD_FLOOR) / (1 - RECORD_FLOOR)));
  }

  /** A BM25 score on the shared scale, given the query's Σ idf. */
  static double words(double bm25, double idfSum) {
    return bm25 <= 0 || idfSum <= 0 ? 0 : bm25 / (bm25 + WORDS_HALF * idfSum);
  }

  /**
   * The sum of the idf of the query's terms over the text field, with the statistics the ranking
   * takes (those of the records searched; a later page's are the first page's); a term no record
   * holds counts with frequency 0.
   */
  static double idfSum(PreparedSearch search) throws IOException {
    IndexSearcher searcher = search.searcher();
    CollectionStatistics collection = searcher.collectionStatistics(IndexFields.TEXT);
    long docs = collection == null ? 0 : collection.docCount();
    double sum = 0;
    for (String text : search.terms()) {
      Term term = new Term(IndexFields.TEXT, text);
      TermStatistics used = search.used().term(term);
      if (used == null) {
        IndexReader reader = searcher.getIndexReader();
        int docFreq = reader.docFreq(term);
        used =
            docFreq == 0
                ? null
                : searcher.termStatistics(term, docFreq, reader.totalTermFreq(term));
      }
      long df = used != null ? used.docFreq() : 0;
      df = Math.min(df, docs);
      sum += Math.log(1 + (docs - df + 0.5) / (df + 0.5));
    }
    return sum;
  }
}
