package dev.sgm.search;

import java.util.Arrays;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.ConstantScoreScorer;
import org.apache.lucene.search.ConstantScoreWeight;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.QueryVisitor;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.ScorerSupplier;
import org.apache.lucene.search.Weight;

/**
 * The documents of one reader given by their ids, such as a search's candidates: as a filter it
 * costs as many steps as there are ids, where a filter by row keys reads the key of every document
 * the rest of the query matches. Valid only for the reader the ids came from.
 */
final class DocsQuery extends Query {
  private final int[] docs;

  /**
   * @param docs the documents' ids in the reader (top-level, not per segment), any order
   */
  DocsQuery(int[] docs) {
    this.docs = Arrays.stream(docs).sorted().distinct().toArray();
  }

  @Override
  public Weight createWeight(IndexSearcher searcher, ScoreMode scoreMode, float boost) {
    return new ConstantScoreWeight(this, boost) {
      @Override
      public ScorerSupplier scorerSupplier(LeafReaderContext context) {
        int base = context.docBase;
        int from = firstAtLeast(base);
        int to = firstAtLeast(base + context.reader().maxDoc());
        if (from == to) {
          return null;
        }
        return new DefaultScorerSupplier(
            new ConstantScoreScorer(score(), scoreMode, new Segment(base, from, to)));
      }

      @Override
      public boolean isCacheable(LeafReaderContext context) {
        // Ids are the reader's own, and a search's candidates are asked for once.
        return false;
      }
    };
  }

  /** The index of the first id at least {@code doc}, or the number of ids. */
  private int firstAtLeast(int doc) {
    int i = Arrays.binarySearch(docs, doc);
    return i < 0 ? -i - 1 : i;
  }

  /** The ids {@code docs[from..to)} of one segment, relative to it, in order. */
  private final class Segment extends DocIdSetIterator {
    private final int base;
    private final int from;
    private final int to;
    private int next;
    private int doc = -1;

    Segment(int base, int from, int to) {
      this.base = base;
      this.from = from;
      this.to = to;
      this.next = from;
    }

    @Override
    public int docID() {
      return doc;
    }

    @Override
    public int nextDoc() {
      doc = next < to ? docs[next++] - base : NO_MORE_DOCS;
      return doc;
    }

    @Override
    public int advance(int target) {
      while (next < to && docs[next] - base < target) {
        next++;
      }
      doc = next < to ? docs[next++] - base : NO_MORE_DOCS;
      return doc;
    }

    @Override
    public long cost() {
      return to - from;
    }
  }

  @Override
  public void visit(QueryVisitor visitor) {
    visitor.visitLeaf(this);
  }

  @Override
  public String toString(String field) {
    return "docs(" + docs.length + ")";
  }

  @Override
  public boolean equals(Object other) {
    return sameClassAs(other) && Arrays.equals(docs, ((DocsQuery) other).docs);
  }

  @Override
  public int hashCode() {
    return 31 * classHash() + Arrays.hashCode(docs);
  }
}
