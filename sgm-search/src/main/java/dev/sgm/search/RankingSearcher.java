package dev.sgm.search;

import java.io.IOException;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermStatistics;

/**
 * A searcher that ranks with given statistics where it has them (a later page), and records the
 * ones it used (for the pages after).
 */
final class RankingSearcher extends IndexSearcher {
  private final Statistics frozen;
  private final Statistics used;

  RankingSearcher(IndexReader reader, Statistics frozen, Statistics used) {
    super(reader);
    this.frozen = frozen;
    this.used = used;
  }

  @Override
  public CollectionStatistics collectionStatistics(String field) throws IOException {
    CollectionStatistics statistics = frozen == null ? null : frozen.collection(field);
    if (statistics == null) {
      statistics = super.collectionStatistics(field);
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
      statistics = super.termStatistics(term, docFreq, totalTermFreq);
    }
    if (statistics != null) {
      used.record(term, statistics);
    }
    return statistics;
  }
}
