package dev.sgm.search;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.FieldExistsQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Scorer;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.FixedBitSet;

/**
 * The documents of a segment that a search by meaning may rank (its filter passes them, they have
 * an embedding, and they are live), kept for the filters asked most recently. Without it each
 * search works them out again by walking every document of its scope: the searches of one project
 * ask the same filter over and over, and a segment's documents change only when it is replaced or
 * loses some (its reader then has a new key).
 */
final class AcceptedByFilter {
  /**
   * How many segment and filter pairs are kept, a bit a document of the segment each: 64 of a
   * million-document segment take 8 MB. A pair whose segment was merged away stays until it is the
   * least recently asked.
   */
  private static final int CAPACITY = 64;

  /** The accepted documents of one segment and how many there are. */
  record Accepted(FixedBitSet docs, int count) {}

  private record Key(Object segment, Query filter) {}

  private final Map<Key, Accepted> recent =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Accepted> eldest) {
          return size() > CAPACITY;
        }
      };

  /**
   * The documents of {@code leaf} that {@code filter} passes with an embedding in {@code field}.
   */
  Accepted of(IndexSearcher searcher, LeafReaderContext leaf, Query filter, String field)
      throws IOException {
    IndexReader.CacheHelper helper = leaf.reader().getReaderCacheHelper();
    if (helper == null) {
      return compute(searcher, leaf, filter, field);
    }
    Key key = new Key(helper.getKey(), filter);
    synchronized (this) {
      Accepted known = recent.get(key);
      if (known != null) {
        return known;
      }
    }
    Accepted accepted = compute(searcher, leaf, filter, field);
    synchronized (this) {
      recent.put(key, accepted);
    }
    return accepted;
  }

  private static Accepted compute(
      IndexSearcher searcher, LeafReaderContext leaf, Query filter, String field)
      throws IOException {
    Query embedded =
        new BooleanQuery.Builder()
            .add(filter, Occur.FILTER)
            .add(new FieldExistsQuery(field), Occur.FILTER)
            .build();
    Scorer scorer =
        searcher
            .createWeight(searcher.rewrite(embedded), ScoreMode.COMPLETE_NO_SCORES, 1f)
            .scorer(leaf);
    FixedBitSet docs = new FixedBitSet(leaf.reader().maxDoc());
    int count = 0;
    if (scorer != null) {
      Bits live = leaf.reader().getLiveDocs();
      DocIdSetIterator it = scorer.iterator();
      for (int doc = it.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = it.nextDoc()) {
        if (live == null || live.get(doc)) {
          docs.set(doc);
          count++;
        }
      }
    }
    return new Accepted(docs, count);
  }
}
