package dev.sgm.search;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.SegmentInfos;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.SearcherFactory;
import org.apache.lucene.search.SearcherManager;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.apache.lucene.store.Directory;
import org.apache.lucene.store.FSDirectory;

/**
 * A Lucene index of records: derived state the engine feeds in the storage's commit order and
 * rebuilds when it is missing. One writer thread should apply changes; searches may run from any
 * thread and see what the last {@link #refresh()} published.
 *
 * <p>This class owns the writer and the searchers; how a record becomes a document is {@link
 * RecordDocument}'s, the filter of a search {@link FilterQuery}'s, and its ranking {@link
 * TextRanking}'s, {@link VectorRanking}'s or {@link HybridRanking}'s.
 */
public final class SearchIndex implements AutoCloseable {
  /** The most analysed terms a query is searched with; further ones are left out and reported. */
  public static final int MAX_QUERY_TERMS = 64;

  /** How deep each candidate list of a hybrid search reaches on a first page. */
  public static final int HYBRID_DEPTH = 100;

  private final Directory directory;
  private final IndexWriter writer;
  private final SearcherManager searchers;
  private final AcceptedByFilter accepted = new AcceptedByFilter();

  /**
   * Each segment keeps its documents newest row first, so that the many ties of a common word reach
   * the ranking best first and can be skipped (see {@link TopRelevance}), and a sort by row key
   * stops early.
   */
  private static final Sort SEGMENT_ORDER =
      new Sort(new SortField(IndexFields.ROW, SortField.Type.LONG, true));

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
    writer.updateDocument(new Term(IndexFields.KEY, record.key()), RecordDocument.of(record));
  }

  /** Removes the document of {@code key}, if any. Visible after {@link #refresh()}. */
  public void delete(String key) throws IOException {
    writer.deleteDocuments(new Term(IndexFields.KEY, key));
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
      return IndexFields.maxPoint(searcher.getIndexReader(), IndexFields.VECTOR_GENERATION);
    } finally {
      searchers.release(searcher);
    }
  }

  /** The row keys of the visible records that have no embedding yet. */
  public List<Long> rowsWithoutVector() throws IOException {
    IndexSearcher searcher = searchers.acquire();
    try {
      Query query =
          new BooleanQuery.Builder()
              .add(MatchAllDocsQuery.INSTANCE, Occur.FILTER)
              .add(new TermQuery(new Term(IndexFields.HAS_VECTOR, "y")), Occur.MUST_NOT)
              .build();
      List<Long> rows = new ArrayList<>();
      int max = Math.max(1, searcher.getIndexReader().maxDoc());
      List<LeafReaderContext> leaves = searcher.getIndexReader().leaves();
      for (ScoreDoc hit : searcher.search(query, max).scoreDocs) {
        rows.add(IndexFields.rowKey(leaves, hit.doc));
      }
      return rows;
    } finally {
      searchers.release(searcher);
    }
  }

  // ---- searching

  /** Runs {@code query}: one page of hits, the total, and what the next page needs. */
  public SearchResult search(SearchQuery query) throws IOException {
    IndexSearcher current = searchers.acquire();
    try {
      Statistics used = new Statistics();
      Statistics frozen = query.frozen() == null ? null : query.frozen().statistics();
      Query filter = FilterQuery.of(query, current.getIndexReader());
      IndexSearcher searcher = new RankingSearcher(current.getIndexReader(), frozen, used, filter);
      List<String> terms = List.of();
      int truncated = 0;
      if (query.text() != null) {
        terms = TextAnalysis.terms(query.text());
        if (terms.size() > MAX_QUERY_TERMS) {
          truncated = terms.size() - MAX_QUERY_TERMS;
          terms = terms.subList(0, MAX_QUERY_TERMS);
        }
      }
      PreparedSearch prepared =
          new PreparedSearch(searcher, query, filter, terms, used, truncated, accepted);
      return switch (query.ranking()) {
        case TEXT -> TextRanking.rank(prepared);
        case SEMANTIC -> VectorRanking.semantic(prepared);
        case HYBRID -> HybridRanking.rank(prepared);
      };
    } finally {
      searchers.release(current);
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
