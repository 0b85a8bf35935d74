package dev.sgm.search;

import java.io.IOException;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.AcceptDocs;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TimeLimitingKnnCollectorManager;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.search.Weight;
import org.apache.lucene.util.BitSetIterator;
import org.apache.lucene.util.Bits;

/**
 * The {@code k} documents nearest a vector among those a filter passes, searched as Lucene's own
 * query does (the graph, or every passed document when they are few or the graph visits more than
 * them), with the passed documents of each segment taken from {@link AcceptedByFilter} instead of
 * worked out again by walking the filter on every search.
 */
final class NearestQuery extends KnnFloatVectorQuery {
  private final IndexSearcher searcher;
  private final AcceptedByFilter accepted;

  NearestQuery(
      String field,
      float[] target,
      int k,
      Query filter,
      IndexSearcher searcher,
      AcceptedByFilter accepted) {
    super(field, target, k, filter);
    this.searcher = searcher;
    this.accepted = accepted;
  }

  @Override
  protected TopDocs searchLeaf(
      LeafReaderContext leaf, Weight filterWeight, TimeLimitingKnnCollectorManager collectors)
      throws IOException {
    AcceptedByFilter.Accepted passed = accepted.of(searcher, leaf, getFilter(), getField());
    TopDocs found = nearest(leaf, passed, collectors);
    for (ScoreDoc hit : found.scoreDocs) {
      hit.doc += leaf.docBase;
    }
    return found;
  }

  private TopDocs nearest(
      LeafReaderContext leaf,
      AcceptedByFilter.Accepted passed,
      TimeLimitingKnnCollectorManager collectors)
      throws IOException {
    // A segment's share of the k, as Lucene's query takes it: the top k overall seldom need more.
    int leafK = getK();
    if (leaf.parent != null) {
      float share = (float) leaf.reader().maxDoc() / leaf.parent.reader().maxDoc();
      leafK = (int) Math.max(1, getK() * share + 16 * Math.sqrt(getK() * share * (1 - share)));
    }
    if (passed.count() <= leafK) {
      return exactSearch(leaf, iterator(passed), null);
    }
    TopDocs results = approximateSearch(leaf, acceptDocs(passed), passed.count() + 1, collectors);
    if (results.totalHits.relation() == TotalHits.Relation.EQUAL_TO
        && results.scoreDocs.length >= leafK) {
      return results;
    }
    // The graph visited more documents than the filter passes (comparing each is cheaper), or found
    // fewer than the segment's share of k.
    return exactSearch(leaf, iterator(passed), null);
  }

  private static DocIdSetIterator iterator(AcceptedByFilter.Accepted passed) {
    return new BitSetIterator(passed.docs(), passed.count());
  }

  private static AcceptDocs acceptDocs(AcceptedByFilter.Accepted passed) {
    return new AcceptDocs() {
      @Override
      public Bits bits() {
        return passed.docs();
      }

      @Override
      public DocIdSetIterator iterator() {
        return NearestQuery.iterator(passed);
      }

      @Override
      public int cost() {
        return passed.count();
      }
    };
  }
}
