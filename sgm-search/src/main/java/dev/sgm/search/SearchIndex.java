package dev.sgm.search;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.ReaderUtil;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.VectorSimilarityFunction;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.KnnFloatVectorQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TermStatistics;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TotalHits;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * A Lucene index of records: derived state the engine feeds in the storage's commit order and
 * rebuilds when it is missing. One writer thread should apply changes; searches may run from any
 * thread and see what the last {@link #refresh()} published.
 */
public final class SearchIndex implements AutoCloseable {
  /** The most analysed terms a query is searched with; further ones are left out and reported. */
  public static final int MAX_QUERY_TERMS = 64;

  /** How deep each candidate list of a hybrid search reaches on a first page. */
  public static final int HYBRID_DEPTH = 100;

  /** How many times a word in the title, and in the tags, counts as often as one in the content. */
  static final int TITLE_WEIGHT = 3;

  static final int TAGS_WEIGHT = 2;

  private static final String KEY = "key";
  private static final String ROW = "row";
  private static final String SCOPE = "scope";
  private static final String PAIR = "pair";
  private static final String ID = "id";
  private static final String TYPE = "type";
  private static final String TAG = "tag";
  private static final String FIELD = "field";
  private static final String CREATED = "created";
  private static final String UPDATED = "updated";
  private static final String CREATED_SEQ = "cseq";

  /** The title, the tags and the content as one weighted field (see {@link #addText}). */
  private static final String TEXT = "text";

  /**
   * The title and the tags alone, weighted as in {@link #TEXT}, for records whose content is
   * withheld.
   */
  private static final String HEADING = "heading";

  private static final String VECTOR = "vector";
  private static final String HAS_VECTOR = "has_vector";
  private static final String VECTOR_GENERATION = "vgen";
  private static final String LEVEL = "level";

  /** Keyword values longer than this are indexed by their hash: Lucene refuses huge terms. */
  private static final int MAX_KEYWORD_BYTES = 4096;

  private final Directory directory;
  private final IndexWriter writer;
  private final SearcherManager searchers;

  /**
   * Each segment keeps its documents newest row first, so that the many ties of a common word reach
   * the ranking best first and can be skipped (see {@link TopRelevance}), and a sort by row key
   * stops early.
   */
  private static final Sort SEGMENT_ORDER = new Sort(new SortField(ROW, SortField.Type.LONG, true));

  private SearchIndex(Directory directory, IndexWriterConfig.OpenMode mode) throws IOException {
    this.directory = directory;
    IndexWriterConfig config = new IndexWriterConfig(TextAnalysis.ANALYZER);
    config.setOpenMode(mode);
    config.setIndexSort(SEGMENT_ORDER);
    config.setCommitOnClose(false);
    IndexWriter opened;
    try {
      opened = new IndexWriter(directory, config);
    } catch (IOException | RuntimeException e) {
      directory.close();
      throw e;
    }
    this.writer = opened;
    this.searchers = new SearcherManager(writer, new SearcherFactory());
  }

  /**
   * What the last commit of the index in {@code dir} recorded (see {@link #commit}), read without
   * opening it for writing, empty when there is none: an index written by another build may not
   * open with this one's settings, and its recorded format says so first.
   */
  public static Map<String, String> committedData(Path dir) throws IOException {
    try (Directory existing = FSDirectory.open(dir)) {
      if (!DirectoryReader.indexExists(existing)) {
        return Map.of();
      }
      return new HashMap<>(SegmentInfos.readLatestCommit(existing).getUserData());
    }
  }

  /** Opens the index in {@code dir}, creating an empty one when there is none. */
  public static SearchIndex open(Path dir) throws IOException {
    return new SearchIndex(FSDirectory.open(dir), IndexWriterConfig.OpenMode.CREATE_OR_APPEND);
  }

  /** Creates an empty index in {@code dir}, replacing whatever was there. */
  public static SearchIndex create(Path dir) throws IOException {
    return new SearchIndex(FSDirectory.open(dir), IndexWriterConfig.OpenMode.CREATE);
  }

  /** An index that lives in memory only. */
  public static SearchIndex inMemory() {
    try {
      return new SearchIndex(new ByteBuffersDirectory(), IndexWriterConfig.OpenMode.CREATE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** What the last commit recorded ({@link #commit}), empty for a new index. */
  public Map<String, String> commitData() {
    Map<String, String> data = new HashMap<>();
    Iterable<Map.Entry<String, String>> live = writer.getLiveCommitData();
    if (live != null) {
      live.forEach(e -> data.put(e.getKey(), e.getValue()));
    }
    return data;
  }

  /** Adds or replaces the document of {@code record.key()}. Visible after {@link #refresh()}. */
  public void put(IndexedRecord record) throws IOException {
    writer.updateDocument(new Term(KEY, record.key()), document(record));
  }

  /** Removes the document of {@code key}, if any. Visible after {@link #refresh()}. */
  public void delete(String key) throws IOException {
    writer.deleteDocuments(new Term(KEY, key));
  }

  /** Removes every document. */
  public void deleteAll() throws IOException {
    writer.deleteAll();
  }

  /** Makes every change so far visible to searches. */
  public void refresh() throws IOException {
    searchers.maybeRefreshBlocking();
  }

  /** Makes every change so far durable, with {@code data} recorded beside it. */
  public void commit(Map<String, String> data) throws IOException {
    writer.setLiveCommitData(new LinkedHashMap<>(data).entrySet());
    writer.commit();
  }

  /**
   * The highest vector generation of any embedding in the index (0 when none): a process that opens
   * an index goes on from there, so the embeddings an earlier one added still rank by meaning for
   * searches that count only generations up to theirs.
   */
  public long maxVectorGeneration() throws IOException {
    IndexSearcher searcher = searchers.acquire();
    try {
      return maxPoint(searcher.getIndexReader(), VECTOR_GENERATION);
    } finally {
      searchers.release(searcher);
    }
  }

  /**
   * The highest value of the long point {@code field} in {@code reader}, 0 when none: each segment
   * keeps its points' bounds, so this costs nothing like a search.
   */
  private static long maxPoint(IndexReader reader, String field) throws IOException {
    long max = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      PointValues points = leaf.reader().getPointValues(field);
      if (points != null && points.size() > 0) {
        max = Math.max(max, LongPoint.decodeDimension(points.getMaxPackedValue(), 0));
      }
    }
    return max;
  }

  /** The row keys of the visible records that have no embedding yet. */
  public List<Long> rowsWithoutVector() throws IOException {
    IndexSearcher searcher = searchers.acquire();
    try {
      Query query =
          new BooleanQuery.Builder()
              .add(MatchAllDocsQuery.INSTANCE, Occur.FILTER)
              .add(new TermQuery(new Term(HAS_VECTOR, "y")), Occur.MUST_NOT)
              .build();
      List<Long> rows = new ArrayList<>();
      int max = Math.max(1, searcher.getIndexReader().maxDoc());
      List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
      for (ScoreDoc hit : searcher.search(query, max).scoreDocs) {
        rows.add(rowKey(leaves, hit.doc));
      }
      return rows;
    } finally {
      searchers.release(searcher);
    }
  }

  private static Document document(IndexedRecord r) {
    Document doc = new Document();
    doc.add(new StringField(KEY, r.key(), Field.Store.NO));
    doc.add(new NumericDocValuesField(ROW, r.rowKey()));
    doc.add(new StringField(SCOPE, keyword(r.scope()), Field.Store.NO));
    for (String pair : r.scopePairs()) {
      doc.add(new StringField(PAIR, keyword(pair), Field.Store.NO));
    }
    doc.add(new StringField(ID, keyword(r.id()), Field.Store.NO));
    doc.add(new StringField(TYPE, keyword(r.type()), Field.Store.NO));
    for (String tag : r.tags()) {
      doc.add(new StringField(TAG, keyword(tag), Field.Store.NO));
    }
    for (String field : r.fields()) {
      doc.add(new StringField(FIELD, keyword(field), Field.Store.NO));
    }
    doc.add(new LongPoint(CREATED, r.createdMicros()));
    doc.add(new NumericDocValuesField(CREATED, r.createdMicros()));
    doc.add(new LongPoint(UPDATED, r.updatedMicros()));
    doc.add(new NumericDocValuesField(UPDATED, r.updatedMicros()));
    doc.add(new LongPoint(CREATED_SEQ, r.createdSeq()));
    doc.add(new LongPoint(LEVEL, r.level()));
    addText(doc, r);
    if (r.vector() != null) {
      doc.add(new KnnFloatVectorField(VECTOR, r.vector(), VectorSimilarityFunction.DOT_PRODUCT));
      doc.add(new StringField(HAS_VECTOR, "y", Field.Store.NO));
      doc.add(new LongPoint(VECTOR_GENERATION, r.vectorGeneration()));
    }
    return doc;
  }

  /**
   * Indexes the ranked text as one field, BM25F's way: the title {@link #TITLE_WEIGHT} times and
   * the tags {@link #TAGS_WEIGHT} times over, then the content, so a word's frequency and the
   * field's length each count a title word as three content words. One field, unlike a query
   * combining three, gives a score whose upper bound per block of documents is known, so a top-k
   * search skips the matches that cannot enter the page; and one field's statistics weigh a word's
   * rarity over all the text, not over the few records that have titles.
   */
  private static void addText(Document doc, IndexedRecord r) {
    String tags = r.tags().isEmpty() ? null : String.join(" ", r.tags());
    for (String field : List.of(TEXT, HEADING)) {
      for (int i = 0; r.title() != null && i < TITLE_WEIGHT; i++) {
        doc.add(new TextField(field, r.title(), Field.Store.NO));
      }
      for (int i = 0; tags != null && i < TAGS_WEIGHT; i++) {
        doc.add(new TextField(field, tags, Field.Store.NO));
      }
    }
    if (r.content() != null) {
      doc.add(new TextField(TEXT, r.content(), Field.Store.NO));
    }
  }

  /** A keyword as indexed: itself, or its hash when it is too long to be one term. */
  private static String keyword(String value) {
    if (value.length() * 3 <= MAX_KEYWORD_BYTES
        || value.getBytes(StandardCharsets.UTF_8).length <= MAX_KEYWORD_BYTES) {
      return value;
    }
    try {
      return "sha256:"
          + HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest(value.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always present", e);
    }
  }

  // ---- searching

  /** Runs {@code query}: one page of hits, the total, and what the next page needs. */
  public SearchResult search(SearchQuery query) throws IOException {
    IndexSearcher current = searchers.acquire();
    try {
      Statistics used = new Statistics();
      Statistics frozen = query.frozen() == null ? null : query.frozen().statistics();
      IndexSearcher searcher = new RankingSearcher(current.getIndexReader(), frozen, used);
      Query filter = filter(query, current.getIndexReader());
      List<String> terms = List.of();
      int truncated = 0;
      if (query.text() != null) {
        terms = TextAnalysis.terms(query.text());
        if (terms.size() > MAX_QUERY_TERMS) {
          truncated = terms.size() - MAX_QUERY_TERMS;
          terms = terms.subList(0, MAX_QUERY_TERMS);
        }
      }
      return switch (query.ranking()) {
        case TEXT -> text(searcher, query, filter, terms, used, truncated);
        case SEMANTIC -> semantic(searcher, query, filter, truncated);
        case HYBRID -> hybrid(searcher, query, filter, terms, used, truncated);
      };
    } finally {
      searchers.release(current);
    }
  }

  private SearchResult text(
      IndexSearcher searcher,
      SearchQuery q,
      Query filter,
      List<String> terms,
      Statistics used,
      int truncated)
      throws IOException {
    Query query;
    if (q.text() == null) {
      query = filter;
    } else if (terms.isEmpty()) {
      return new SearchResult(List.of(), 0, false, new SearchQuery.Frozen(used, null), truncated);
    } else {
      query =
          new BooleanQuery.Builder()
              .add(textQuery(q, terms), Occur.MUST)
              .add(filter, Occur.FILTER)
              .build();
    }
    if (q.order() == SearchQuery.Order.RELEVANCE && q.text() != null) {
      TopRelevance.Hit after =
          q.after() == null
              ? null
              : new TopRelevance.Hit(q.after().rowKey(), (float) q.after().value());
      List<TopRelevance.Hit> top =
          searcher.search(query, new TopRelevance(ROW, q.limit() + 1, after));
      List<SearchResult.Hit> hits = new ArrayList<>();
      for (TopRelevance.Hit hit : top.subList(0, Math.min(q.limit(), top.size()))) {
        hits.add(new SearchResult.Hit(hit.rowKey(), hit.score()));
      }
      return new SearchResult(
          hits,
          searcher.count(query),
          top.size() > q.limit(),
          new SearchQuery.Frozen(used, null),
          truncated);
    }
    Sort sort = sort(q.order());
    FieldDoc after = null;
    if (q.after() != null) {
      Object first =
          q.order() == SearchQuery.Order.RELEVANCE
              ? (Object) (float) q.after().value()
              : (Object) (long) q.after().value();
      after = new FieldDoc(Integer.MAX_VALUE, Float.NaN, new Object[] {first, q.after().rowKey()});
    }
    // Collecting stops counting at the page, so that a sort by date may skip what cannot enter
    // it; the total is then counted on its own.
    TopFieldDocs top =
        searcher.search(
            query, new TopFieldCollectorManager(sort, q.limit() + 1, after, q.limit() + 1));
    long total =
        top.totalHits.relation() == TotalHits.Relation.EQUAL_TO
            ? top.totalHits.value()
            : searcher.count(query);
    List<SearchResult.Hit> hits = new ArrayList<>();
    for (int i = 0; i < Math.min(q.limit(), top.scoreDocs.length); i++) {
      FieldDoc doc = (FieldDoc) top.scoreDocs[i];
      double value =
          doc.fields[0] instanceof Float f ? f.doubleValue() : ((Long) doc.fields[0]).doubleValue();
      hits.add(new SearchResult.Hit((Long) doc.fields[1], value));
    }
    return new SearchResult(
        hits,
        total,
        top.scoreDocs.length > q.limit(),
        new SearchQuery.Frozen(used, null),
        truncated);
  }

  private static Sort sort(SearchQuery.Order order) {
    SortField row =
        new SortField(
            ROW,
            SortField.Type.LONG,
            order != SearchQuery.Order.CREATED_ASC && order != SearchQuery.Order.UPDATED_ASC);
    return switch (order) {
      case RELEVANCE -> new Sort(SortField.FIELD_SCORE, row);
      case UPDATED_DESC -> new Sort(new SortField(UPDATED, SortField.Type.LONG, true), row);
      case UPDATED_ASC -> new Sort(new SortField(UPDATED, SortField.Type.LONG, false), row);
      case CREATED_DESC -> new Sort(new SortField(CREATED, SortField.Type.LONG, true), row);
      case CREATED_ASC -> new Sort(new SortField(CREATED, SortField.Type.LONG, false), row);
    };
  }

  /**
   * Any of the terms, each scored over the title, the tags and the content as one weighted field
   * (BM25F, see {@link #addText}), or over the title and the tags alone.
   */
  private static Query textQuery(List<String> terms, boolean withContent) {
    BooleanQuery.Builder any = new BooleanQuery.Builder();
    for (String term : terms) {
      any.add(new TermQuery(new Term(withContent ? TEXT : HEADING, term)), Occur.SHOULD);
    }
    return any.build();
  }

  /**
   * The text query of {@code q}: over title, tags and content for the records within the caller's
   * clearance, over title and tags alone for those above it, whose content the caller may not see
   * and so must not find them by (withheld text ranks nothing).
   */
  private static Query textQuery(SearchQuery q, List<String> terms) {
    if (!q.restrictsLevels()) {
      return textQuery(terms, true);
    }
    Query cleared = atMost(LEVEL, q.clearance(), 0);
    return new BooleanQuery.Builder()
        .add(
            new BooleanQuery.Builder()
                .add(textQuery(terms, true), Occur.MUST)
                .add(cleared, Occur.FILTER)
                .build(),
            Occur.SHOULD)
        .add(
            new BooleanQuery.Builder()
                .add(textQuery(terms, false), Occur.MUST)
                .add(cleared, Occur.MUST_NOT)
                .build(),
            Occur.SHOULD)
        .build();
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
        q.vectorGeneration() < maxPoint(reader, VECTOR_GENERATION)
            ? atMost(VECTOR_GENERATION, q.vectorGeneration(), 0)
            : new TermQuery(new Term(HAS_VECTOR, "y"));
    if (!q.restrictsLevels()) {
      return embedded;
    }
    return new BooleanQuery.Builder()
        .add(embedded, Occur.FILTER)
        .add(atMost(LEVEL, q.clearance(), 0), Occur.FILTER)
        .build();
  }

  private SearchResult semantic(IndexSearcher searcher, SearchQuery q, Query filter, int truncated)
      throws IOException {
    int depth = q.offset() + q.limit() + 1;
    Map<Long, Double> dense = dense(searcher, q, filter, depth);
    addUnembedded(searcher, q, filter, depth - dense.size(), dense);
    return page(
        q,
        dense,
        searcher.count(filter),
        new SearchQuery.Frozen(new Statistics(), null),
        truncated);
  }

  /**
   * Adds up to {@code count} records that pass the filter but have no embedding yet, at score 0
   * (newest first): every record matches by meaning, and one not yet embedded is not left out of
   * the answer, only ranked last.
   */
  private static void addUnembedded(
      IndexSearcher searcher, SearchQuery q, Query filter, int count, Map<Long, Double> scores)
      throws IOException {
    if (count <= 0) {
      return;
    }
    Query waiting =
        new BooleanQuery.Builder()
            .add(filter, Occur.FILTER)
            .add(rankedByMeaning(searcher.getIndexReader(), q), Occur.MUST_NOT)
            .build();
    Sort newest = new Sort(new SortField(ROW, SortField.Type.LONG, true));
    TopFieldDocs top = searcher.search(waiting, new TopFieldCollectorManager(newest, count, 0));
    for (ScoreDoc hit : top.scoreDocs) {
      scores.putIfAbsent((Long) ((FieldDoc) hit).fields[0], 0.0);
    }
  }

  private SearchResult hybrid(
      IndexSearcher searcher,
      SearchQuery q,
      Query filter,
      List<String> terms,
      Statistics used,
      int truncated)
      throws IOException {
    int depth = Math.max(HYBRID_DEPTH, q.offset() + q.limit() + 1);
    Map<Long, Double> lexical = new LinkedHashMap<>();
    if (!terms.isEmpty()) {
      Query query =
          new BooleanQuery.Builder()
              .add(textQuery(q, terms), Occur.MUST)
              .add(filter, Occur.FILTER)
              .build();
      for (TopRelevance.Hit hit : searcher.search(query, new TopRelevance(ROW, depth, null))) {
        lexical.put(hit.rowKey(), (double) hit.score());
      }
    }
    Map<Long, Double> dense = dense(searcher, q, filter, depth);
    double[] bounds =
        q.frozen() != null && q.frozen().bounds() != null
            ? q.frozen().bounds()
            : new double[] {
              min(lexical, HYBRID_DEPTH), max(lexical), min(dense, HYBRID_DEPTH), max(dense)
            };
    Map<Long, Double> fused = new HashMap<>();
    for (Map.Entry<Long, Double> e : lexical.entrySet()) {
      fused.merge(e.getKey(), 0.5 * normalise(e.getValue(), bounds[0], bounds[1]), Double::sum);
    }
    for (Map.Entry<Long, Double> e : dense.entrySet()) {
      fused.merge(e.getKey(), 0.5 * normalise(e.getValue(), bounds[2], bounds[3]), Double::sum);
    }
    addUnembedded(searcher, q, filter, depth - dense.size(), fused);
    return page(q, fused, searcher.count(filter), new SearchQuery.Frozen(used, bounds), truncated);
  }

  /** The top {@code k} records by closeness of their embedding, among those the filter passes. */
  private Map<Long, Double> dense(IndexSearcher searcher, SearchQuery q, Query filter, int k)
      throws IOException {
    if (q.vector() == null) {
      throw new IllegalArgumentException("a semantic ranking needs the query's vector");
    }
    Map<Long, Double> scores = new LinkedHashMap<>();
    if (!hasVectors(searcher)) {
      return scores;
    }
    // The vector search sees only records with an embedding: the filter needs what ranks them by
    // meaning only when that is narrower (see rankedByMeaning).
    Query embedded = filter;
    if (q.vectorGeneration() < maxPoint(searcher.getIndexReader(), VECTOR_GENERATION)
        || q.restrictsLevels()) {
      embedded =
          new BooleanQuery.Builder()
              .add(filter, Occur.FILTER)
              .add(rankedByMeaning(searcher.getIndexReader(), q), Occur.FILTER)
              .build();
    }
    TopDocs top = searcher.search(new KnnFloatVectorQuery(VECTOR, q.vector(), k, embedded), k);
    List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
    for (ScoreDoc hit : top.scoreDocs) {
      scores.put(rowKey(leaves, hit.doc), (double) hit.score);
    }
    return scores;
  }

  private static boolean hasVectors(IndexSearcher searcher) {
    for (LeafReaderContext leaf : searcher.getIndexReader().leaves()) {
      if (leaf.reader().getFieldInfos().fieldInfo(VECTOR) != null) {
        return true;
      }
    }
    return false;
  }

  private static long rowKey(List<LeafReaderContext> leaves, int doc) throws IOException {
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    NumericDocValues rows = leaf.reader().getNumericDocValues(ROW);
    if (rows == null || !rows.advanceExact(doc - leaf.docBase)) {
      throw new IllegalStateException("a document without a row key");
    }
    return rows.longValue();
  }

  /**
   * The page after {@code q.after()} of {@code scores}, best first, ties by row key; {@code frozen}
   * is what the next page must rank with.
   */
  private static SearchResult page(
      SearchQuery q,
      Map<Long, Double> scores,
      long total,
      SearchQuery.Frozen frozen,
      int truncated) {
    List<Map.Entry<Long, Double>> ranked = new ArrayList<>(scores.entrySet());
    Comparator<Map.Entry<Long, Double>> best =
        Comparator.<Map.Entry<Long, Double>>comparingDouble(Map.Entry::getValue)
            .thenComparingLong(Map.Entry::getKey)
            .reversed();
    ranked.sort(best);
    List<SearchResult.Hit> hits = new ArrayList<>();
    boolean more = false;
    for (Map.Entry<Long, Double> e : ranked) {
      if (q.after() != null && !isAfter(e.getValue(), e.getKey(), q.after())) {
        continue;
      }
      if (hits.size() == q.limit()) {
        more = true;
        break;
      }
      hits.add(new SearchResult.Hit(e.getKey(), e.getValue()));
    }
    return new SearchResult(hits, total, more, frozen, truncated);
  }

  private static boolean isAfter(double value, long row, SearchQuery.After after) {
    return value < after.value() || (value == after.value() && row < after.rowKey());
  }

  private static double min(Map<Long, Double> scores, int within) {
    double min = Double.POSITIVE_INFINITY;
    int seen = 0;
    for (double v : scores.values()) {
      if (seen++ == within) {
        break;
      }
      min = Math.min(min, v);
    }
    return scores.isEmpty() ? 0 : min;
  }

  private static double max(Map<Long, Double> scores) {
    return scores.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
  }

  /** Min–max normalisation into [0, 1]; a single score (min = max) counts fully. */
  private static double normalise(double value, double min, double max) {
    if (max <= min) {
      return value >= max ? 1 : 0;
    }
    return Math.max(0, Math.min(1, (value - min) / (max - min)));
  }

  private static Query filter(SearchQuery q, IndexReader reader) throws IOException {
    BooleanQuery.Builder all = new BooleanQuery.Builder();
    Query byScope = q.scopes().isEmpty() ? null : termsQuery(SCOPE, q.scopes());
    Query byPairs = null;
    if (q.requiredPairs() != null) {
      BooleanQuery.Builder pairs = new BooleanQuery.Builder();
      for (String pair : q.requiredPairs()) {
        pairs.add(new TermQuery(new Term(PAIR, keyword(pair))), Occur.FILTER);
      }
      byPairs = pairs.build();
    }
    if (byScope != null && byPairs != null) {
      all.add(
          new BooleanQuery.Builder()
              .add(byScope, Occur.SHOULD)
              .add(byPairs, Occur.SHOULD)
              .setMinimumNumberShouldMatch(1)
              .build(),
          Occur.FILTER);
    } else if (byScope != null || byPairs != null) {
      all.add(byScope != null ? byScope : byPairs, Occur.FILTER);
    } else {
      all.add(MatchAllDocsQuery.INSTANCE, Occur.FILTER);
    }
    if (!q.ids().isEmpty()) {
      all.add(termsQuery(ID, q.ids()), Occur.FILTER);
    }
    if (!q.types().isEmpty()) {
      all.add(termsQuery(TYPE, q.types()), Occur.FILTER);
    }
    if (!q.tags().isEmpty()) {
      if (q.anyTag()) {
        all.add(termsQuery(TAG, q.tags()), Occur.FILTER);
      } else {
        for (String tag : q.tags()) {
          all.add(new TermQuery(new Term(TAG, keyword(tag))), Occur.FILTER);
        }
      }
    }
    if (q.within() != null) {
      BooleanQuery.Builder readable = new BooleanQuery.Builder();
      for (List<String> scope : q.within()) {
        BooleanQuery.Builder pairs = new BooleanQuery.Builder();
        for (String pair : scope) {
          pairs.add(new TermQuery(new Term(PAIR, keyword(pair))), Occur.FILTER);
        }
        readable.add(pairs.build(), Occur.SHOULD);
      }
      if (q.within().isEmpty()) {
        readable.add(MatchAllDocsQuery.INSTANCE, Occur.MUST_NOT);
      } else {
        readable.setMinimumNumberShouldMatch(1);
      }
      all.add(readable.build(), Occur.FILTER);
    }
    for (String field : q.fields()) {
      all.add(new TermQuery(new Term(FIELD, keyword(field))), Occur.FILTER);
    }
    for (String field : q.withheldFields()) {
      all.add(new TermQuery(new Term(FIELD, keyword(field))), Occur.FILTER);
    }
    if (q.restrictsLevels() && !q.withheldFields().isEmpty()) {
      all.add(atMost(LEVEL, q.clearance(), 0), Occur.FILTER);
    }
    if (q.createdAfter() != null) {
      all.add(atLeast(CREATED, q.createdAfter(), 1), Occur.FILTER);
    }
    if (q.createdBefore() != null) {
      all.add(atMost(CREATED, q.createdBefore(), 1), Occur.FILTER);
    }
    if (q.updatedAfter() != null) {
      all.add(atLeast(UPDATED, q.updatedAfter(), 1), Occur.FILTER);
    }
    // Only when a record created after the mark is in the index (a later page): otherwise the
    // bound excludes nothing, and filtering by it costs a pass over every record's point.
    if (q.mark() != Long.MAX_VALUE && q.mark() < maxPoint(reader, CREATED_SEQ)) {
      all.add(atMost(CREATED_SEQ, q.mark(), 0), Occur.FILTER);
    }
    return all.build();
  }

  private static Query atLeast(String field, long bound, int exclusive) {
    return LongPoint.newRangeQuery(
        field, bound == Long.MAX_VALUE ? bound : bound + exclusive, Long.MAX_VALUE);
  }

  private static Query atMost(String field, long bound, int exclusive) {
    return LongPoint.newRangeQuery(
        field, Long.MIN_VALUE, bound == Long.MIN_VALUE ? bound : bound - exclusive);
  }

  private static Query termsQuery(String field, java.util.Collection<String> values) {
    if (values.size() == 1) {
      return new TermQuery(new Term(field, keyword(values.iterator().next())));
    }
    List<BytesRef> terms = new ArrayList<>(values.size());
    for (String value : values) {
      terms.add(new BytesRef(keyword(value)));
    }
    return new TermInSetQuery(field, terms);
  }

  /**
   * A searcher that ranks with given statistics where it has them (a later page), and records the
   * ones it used (for the pages after).
   */
  private static final class RankingSearcher extends IndexSearcher {
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

  @Override
  public void close() throws IOException {
    try {
      searchers.close();
      writer.close();
    } finally {
      directory.close();
    }
  }
}
