package dev.sgm.search;

import java.io.IOException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermStatistics;

/**
 * The scale that semantic and hybrid scores share, in [0, 1] and comparable across queries. Each
 * part is absolute rather than normalised within a query's own candidates, so that the best
 * candidate of a question about nothing stored does not score as high as the best answer to a good
 * one.
 *
 * <p>By meaning: {@code (similarity - scoreFloor) / (1 - scoreFloor)}, 0 at the model's score floor
 * and 1 for a text identical in meaning ({@link MeaningScale}; each model has its own floors). By
 * words: {@code bm25 / (bm25 + WORDS_HALF * Σ idf)}, where Σ idf is the most a record could score
 * for the query's words (Lucene's BM25 gives a word at most its idf); a record scores 0.5 when it
 * holds about half of what the query asks for. Hybrid takes the weighted sum of the two. The
 * floors, the weights and the half point were chosen on data (docs/spec/retrieval.md says how).
 */
public final class Relevance {
  /** The share of the query's Σ idf at which a record scores 0.5 by words. */
  static final double WORDS_HALF = 0.5;

  private Relevance() {}

  /** The cosine similarity of a DOT_PRODUCT vector hit's score ({@code (1 + dot) / 2}). */
  static double cosine(double vectorScore) {
    return 2 * vectorScore - 1;
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
