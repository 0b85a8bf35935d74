package dev.sgm.search;

import java.io.IOException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.similarities.BM25Similarity;

/**
 * A searcher that ranks by BM25 with the statistics of the records searched (the query's scopes and
 * filters) rather than of the whole index, with given statistics where it has them (a later page),
 * and records the ones it used (for the pages after). A word common in one project and rare in the
 * others says little in that project: counted over the index, it would weigh as much as the rare
 * words a question is really about.
 */
final class RankingSearcher extends IndexSearcher {
  /**
   * BM25 with k1 0.9 and b 0.4, the common choice of IR toolkits for short passages (Anserini's):
   * length weighs less than with Lucene's 0.75, and a short note is not favoured for its shortness
   * alone. Chosen over 1.2 / 0.75 on the tuning conversations (docs/spec/retrieval.md).
   */
  static final BM25Similarity SIMILARITY = new BM25Similarity(0.9f, 0.4f);

  private final Statistics frozen;
  private final Statistics used;
  private final Query searched;
  private final IndexSearcher counting;
  private long searchedCount = -1;

  /**
   * @param searched the records a search may return (its filter), whose statistics rank them
   */
  RankingSearcher(IndexReader reader, Statistics frozen, Statistics used, Query searched) {
    super(reader);
    this.frozen = frozen;
    this.used = used;
    this.searched = searched;
    this.counting = new IndexSearcher(reader);
    setSimilarity(SIMILARITY);
  }

  @Override
  public CollectionStatistics collectionStatistics(String field) throws IOException {
    CollectionStatistics statistics = frozen == null ? null : frozen.collection(field);
    if (statistics == null) {
      statistics = searchedShare(super.collectionStatistics(field));
    }
    if (statistics != null) {
      used.record(statistics);
    }
    return statistics;
  }

  @Override
  public TermStatistics termStatistics(Term term, int docFreq, long totalTermFreq)
      throws IOException {
    TermStatistics statistics = frozen == null ? null : frozen.term(term);
    if (statistics == null) {
      // Counted once a search: a hybrid search weighs the same words in several queries.
      statistics = used.term(term);
    }
    if (statistics == null) {
      statistics = super.termStatistics(term, docFreq, totalTermFreq);
      if (statistics != null && searchedCount() > 0) {
        long within =
            counting.count(
                new BooleanQuery.Builder()
                    .add(new TermQuery(term), Occur.FILTER)
                    .add(searched, Occur.FILTER)
                    .build());
        // A term none of the searched records holds matches none of them; Lucene's statistics
        // need a frequency of at least one.
        long df = Math.max(1, within);
        statistics =
            new TermStatistics(term.bytes(), df, Math.max(df, totalTermFreq * df / docFreq));
      }
    }
    if (statistics != null) {
      used.record(term, statistics);
    }
    return statistics;
  }

  /**
   * The index's statistics of {@code field} scaled to the records searched: their count, and the
   * index's average length (a length counted over them alone would cost a pass over them all).
   */
  private CollectionStatistics searchedShare(CollectionStatistics index) throws IOException {
    long count = searchedCount();
    if (index == null || count <= 0 || count >= index.docCount()) {
      return index;
    }
    double share = (double) count / index.docCount();
    long sumDocFreq = Math.max(count, Math.round(index.sumDocFreq() * share));
    long sumTotalTermFreq = Math.max(sumDocFreq, Math.round(index.sumTotalTermFreq() * share));
    return new CollectionStatistics(index.field(), count, count, sumTotalTermFreq, sumDocFreq);
  }

  private long searchedCount() throws IOException {
    if (searchedCount < 0) {
      searchedCount = counting.count(searched);
    }
    return searchedCount;
  }
}
