package dev.sgm.search;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;

/**
 * Ranking by meaning: the records closest to the query's embedding (HNSW), among those whose
 * embedding may rank them, then the ones not embedded yet, last.
 */
final class VectorRanking {
  private VectorRanking() {}

  /** A page of a semantic search. */
  static SearchResult semantic(PreparedSearch search) throws IOException {
    SearchQuery q = search.query();
    int depth = q.offset() + q.limit() + 1;
    Map<Long, Double> dense = dense(search, depth);
    addUnembedded(search, depth - dense.size(), dense);
    return ScoredPage.of(
        q,
        dense,
        search.searcher().count(search.filter()),
        new SearchQuery.Frozen(new Statistics(), null),
        search.truncated());
  }

  /** The top {@code k} records by closeness of their embedding, among those the filter passes. */
  static Map<Long, Double> dense(PreparedSearch search, int k) throws IOException {
    SearchQuery q = search.query();
    IndexSearcher searcher = search.searcher();
    if (q.vector() == null) {
      throw new IllegalArgumentException("a semantic ranking needs the query's vector");
    }
    Map<Long, Double> scores = new LinkedHashMap<>();
    if (!hasVectors(searcher)) {
      return scores;
    }
    // The vector search sees only records with an embedding: the filter needs what ranks them by
    // meaning only when that is narrower (see rankedByMeaning).
    Query embedded = search.filter();
    if (q.vectorGeneration()
            < IndexFields.maxPoint(searcher.getIndexReader(), IndexFields.VECTOR_GENERATION)
        || q.restrictsLevels()) {
      embedded =
          new BooleanQuery.Builder()
              .add(search.filter(), Occur.FILTER)
              .add(rankedByMeaning(searcher.getIndexReader(), q), Occur.FILTER)
              .build();
    }
    TopDocs top =
        searcher.search(new KnnFloatVectorQuery(IndexFields.VECTOR, q.vector(), k, embedded), k);
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    for (ScoreDoc hit : top.scoreDocs) {
      scores.put(IndexFields.rowKey(leaves, hit.doc), (double) hit.score);
    }
    return scores;
  }

  /**
   * Adds up to {@code count} records that pass the filter but have no embedding yet, at score 0
   * (newest first): every record matches by meaning, and one not yet embedded is not left out of
   * the answer, only ranked last.
   */
  static void addUnembedded(PreparedSearch search, int count, Map<Long, Double> scores)
      throws IOException {
    if (count <= 0) {
      return;
    }
    IndexSearcher searcher = search.searcher();
    Query waiting =
        new BooleanQuery.Builder()
            .add(search.filter(), Occur.FILTER)
            .add(rankedByMeaning(searcher.getIndexReader(), search.query()), Occur.MUST_NOT)
            .build();
    Sort newest = new Sort(new SortField(IndexFields.ROW, SortField.Type.LONG, true));
    TopFieldDocs top = searcher.search(waiting, new TopFieldCollectorManager(newest, count, 0));
    for (ScoreDoc hit : top.scoreDocs) {
      scores.putIfAbsent((Long) ((FieldDoc) hit).fields[0], 0.0);
    }
  }

  /**
   * The records whose embedding ranks them: embedded by the query's generation, and within the
   * caller's clearance (an embedding is made of the content, which a record above it withholds).
   */
  private static Query rankedByMeaning(IndexReader reader, SearchQuery q) throws IOException {
    // The generation is a filter only when the index holds embeddings newer than the query's (a
    // later page, or an embedding published a moment ago): as a range it costs a pass over every
    // embedded record's point, where the term costs a posting list.
    Query embedded =
        q.vectorGeneration() < IndexFields.maxPoint(reader, IndexFields.VECTOR_GENERATION)
            ? FilterQuery.atMost(IndexFields.VECTOR_GENERATION, q.vectorGeneration(), 0)
            : new TermQuery(new Term(IndexFields.HAS_VECTOR, "y"));
    if (!q.restrictsLevels()) {
      return embedded;
    }
    return new BooleanQuery.Builder()
        .add(embedded, Occur.FILTER)
        .add(FilterQuery.atMost(IndexFields.LEVEL, q.clearance(), 0), Occur.FILTER)
        .build();
  }

  private static boolean hasVectors(IndexSearcher searcher) {
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      if (leaf.reader().getFieldInfos().fieldInfo(IndexFields.VECTOR) != null) {
        return true;
      }
    }
    return false;
  }
}
