package dev.sgm.search;

import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.FloatVectorValues;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.KnnVectorValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.util.IOBooleanSupplier;

/**
 * Ranking by meaning: the records closest to the query's embedding (HNSW), among those whose
 * embedding may rank them.
 */
final class VectorRanking {
  private VectorRanking() {}

  /** A page of a semantic search. */
  static SearchResult semantic(PreparedSearch search) throws IOException {
    SearchQuery q = search.query();
    int depth = Math.max(SearchIndex.HYBRID_DEPTH, q.offset() + q.limit() + 1);
    Map<Long, Integer> docs = new HashMap<>();
    Map<Long, Double> matching =
        matching(search, closest(search, depth, docs), docs, () -> holdsAWord(search));
    matching.values().removeIf(score -> score < q.minScore());
    return ScoredPage.of(
        q, matching, matching.size(), new SearchQuery.Frozen(new Statistics()), search.truncated());
  }

  /**
   * Those of {@code closest} (vector scores by row, from {@link #closest}, with their documents in
   * {@code docs}) that match the query by meaning, with their scores on {@link Relevance}'s scale:
   * those whose matching cosine is at or above the model's record floor; none when even the best is
   * below its query floor and no searched record holds a word of the query ({@code aWordIsHeld},
   * asked only then). A record not embedded yet is not among them (the answer's retrieval says how
   * many wait).
   */
  static Map<Long, Double> matching(
      PreparedSearch search,
      Map<Long, Double> closest,
      Map<Long, Integer> docs,
      IOBooleanSupplier aWordIsHeld)
      throws IOException {
    MeaningScale scale = search.query().scale();
    Map<Long, Double> cosines = matchingCosines(search, closest, docs);
    Map<Long, Double> matching = new LinkedHashMap<>();
    double best =
        cosines.values().stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    if (closest.isEmpty() || (best < scale.queryFloor() && !aWordIsHeld.get())) {
      return matching;
    }
    closest.forEach(
        (row, score) -> {
          if (cosines.get(row) >= scale.recordFloor()) {
            matching.put(row, scale.meaning(Relevance.cosine(score)));
          }
        });
    return matching;
  }

  /**
   * The cosine of the query's matching vector with each record of {@code scores} (vector scores by
   * row, with their documents in {@code docs}): that of its vector score when the query's vector
   * decides too, else read from the first dimensions of the record's embedding. Bounded by the
   * records given.
   */
  private static Map<Long, Double> matchingCosines(
      PreparedSearch search, Map<Long, Double> scores, Map<Long, Integer> docs) throws IOException {
    SearchQuery q = search.query();
    Map<Long, Double> cosines = new HashMap<>();
    if (q.matchingVector() == q.vector()) {
      scores.forEach((row, score) -> cosines.put(row, Relevance.cosine(score)));
      return cosines;
    }
    float[] matching = q.matchingVector();
    double matchingNorm = norm(matching, matching.length);
    // In the order of documents: a segment's vectors are read forwards.
    List<Map.Entry<Long, Integer>> byDoc =
        scores.keySet().stream()
            .map(row -> Map.entry(row, docs.get(row)))
            .sorted(Map.Entry.comparingByValue())
            .toList();
    List<LeafReaderContext> leaves = search.searcher().getIndexReader().leaves();
    int leafIndex = -1;
    FloatVectorValues vectors = null;
    KnnVectorValues.DocIndexIterator iterator = null;
    for (Map.Entry<Long, Integer> entry : byDoc) {
      int doc = entry.getValue();
      int index = ReaderUtil.subIndex(doc, leaves);
      LeafReaderContext leaf = leaves.get(index);
      if (index != leafIndex) {
        leafIndex = index;
        vectors = leaf.reader().getFloatVectorValues(IndexFields.VECTOR);
        iterator = vectors == null ? null : vectors.iterator();
      }
      int target = doc - leaf.docBase;
      double cosine = -1;
      int at =
          iterator == null
              ? DocIdSetIterator.NO_MORE_DOCS
              : iterator.docID() < target ? iterator.advance(target) : iterator.docID();
      if (at == target) {
        float[] vector = vectors.vectorValue(iterator.index());
        double norm = norm(vector, matching.length) * matchingNorm;
        double dot = 0;
        for (int i = 0; i < matching.length; i++) {
          dot += (double) matching[i] * vector[i];
        }
        cosine = norm == 0 ? 0 : dot / norm;
      }
      cosines.put(entry.getKey(), cosine);
    }
    return cosines;
  }

  /** The length of the first {@code dimensions} of {@code vector}. */
  private static double norm(float[] vector, int dimensions) {
    double sum = 0;
    for (int i = 0; i < dimensions; i++) {
      sum += (double) vector[i] * vector[i];
    }
    return Math.sqrt(sum);
  }

  /**
   * The scores on {@link Relevance}'s scale of those of {@code docs} (records the search found by
   * its words, by their documents in its reader) that match it by meaning, found by comparing their
   * embeddings with the query's one by one: a record can hold the query's words and be close in
   * meaning without being among the closest of the whole scope. Bounded by the documents given, not
   * by the scope.
   */
  static Map<Long, Double> matchingByMeaning(PreparedSearch search, int[] docs) throws IOException {
    IndexSearcher searcher = search.searcher();
    if (docs.length == 0 || !hasVectors(searcher)) {
      return new LinkedHashMap<>();
    }
    // At most k candidates pass: the vector search compares them one by one, or a segment holding
    // more than its share of k searches its graph among them.
    Query only =
        new BooleanQuery.Builder()
            .add(new DocsQuery(docs), Occur.FILTER)
            .add(rankedByMeaning(searcher.getIndexReader(), search.query()), Occur.FILTER)
            .build();
    TopDocs top =
        searcher.search(
            new KnnFloatVectorQuery(IndexFields.VECTOR, search.query().vector(), docs.length, only),
            docs.length);
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    Map<Long, Double> scores = new LinkedHashMap<>();
    Map<Long, Integer> docsByRow = new HashMap<>();
    for (ScoreDoc hit : top.scoreDocs) {
      long row = IndexFields.rowKey(leaves, hit.doc);
      scores.put(row, (double) hit.score);
      docsByRow.put(row, hit.doc);
    }
    // These hold a word of the query, so the query floor does not apply.
    return matching(search, scores, docsByRow, () -> true);
  }

  /** Whether a record the search may return holds one of its words. */
  static boolean holdsAWord(PreparedSearch search) throws IOException {
    return !search.terms().isEmpty()
        && search.searcher().search(TextQuery.filtered(search), 1).scoreDocs.length > 0;
  }

  /**
   * The top {@code k} records by closeness of their embedding, among those the filter passes, with
   * their vector scores (not yet on the shared scale); their documents go in {@code docs} when
   * given.
   */
  static Map<Long, Double> closest(PreparedSearch search, int k, Map<Long, Integer> docs)
      throws IOException {
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
        searcher.search(
            new NearestQuery(
                IndexFields.VECTOR, q.vector(), k, embedded, searcher, search.accepted()),
            k);
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    for (ScoreDoc hit : top.scoreDocs) {
      long row = IndexFields.rowKey(leaves, hit.doc);
      scores.put(row, (double) hit.score);
      if (docs != null) {
        docs.put(row, hit.doc);
      }
    }
    return scores;
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
