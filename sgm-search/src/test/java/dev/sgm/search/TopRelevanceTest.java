package dev.sgm.search;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.store.ByteBuffersDirectory;
import org.junit.jupiter.api.Test;

/**
 * The pruning collector returns exactly what a full sort by score then row key returns, page after
 * page with many tied scores, while scoring only a fraction of the matches of a common word.
 */
class TopRelevanceTest {
  private static final int DOCS = 20_000;

  @Test
  void pagesEqualAFullSortAndSkipMostMatchesOfACommonWord() throws IOException {
    try (ByteBuffersDirectory directory = new ByteBuffersDirectory()) {
      SplittableRandom random = new SplittableRandom(7);
      try (IndexWriter writer =
          new IndexWriter(directory, new IndexWriterConfig(TextAnalysis.ANALYZER))) {
        for (int i = 0; i < DOCS; i++) {
          // Few distinct lengths, so that many documents tie on score and the row key decides.
          StringBuilder text = new StringBuilder("release");
          int filler = 3 + random.nextInt(12);
          for (int w = 0; w < filler; w++) {
            text.append(" word").append(random.nextInt(50));
          }
          Document doc = new Document();
          doc.add(new TextField("text", text.toString(), Field.Store.NO));
          doc.add(new NumericDocValuesField("row", random.nextLong(1_000_000_000L)));
          writer.addDocument(doc);
          if (i % 3_000 == 0) {
            writer.commit();
          }
        }
      }
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        IndexSearcher searcher = new IndexSearcher(reader);
        Query query = new TermQuery(new Term("text", TextAnalysis.terms("release").get(0)));
        List<TopRelevance.Hit> expected = fullSort(searcher, query);
        assertEquals(DOCS, expected.size());

        assertPagesEqualTheFullSortScoringFewerThan(searcher, query, expected, DOCS / 4);

        // With a lowest score: the hits at or above it, and none below, whatever the size asked.
        float lowest = expected.get(300).score();
        List<TopRelevance.Hit> atLeast =
            searcher.search(query, new TopRelevance("row", DOCS, null, lowest));
        assertEquals(expected.stream().filter(hit -> hit.score() >= lowest).toList(), atLeast);
        assertTrue(
            atLeast.size() > 300 && atLeast.size() < DOCS, "some, not all: " + atLeast.size());
        AtomicLong collected = new AtomicLong();
        List<TopRelevance.Hit> none =
            searcher.search(
                query,
                counting(
                    new TopRelevance("row", 10, null, Math.nextUp(expected.get(0).score())),
                    collected));
        assertEquals(List.of(), none, "nothing scores above the best");
        assertTrue(collected.get() < DOCS / 4, "scored " + collected.get() + " to find none");
      }
    }
  }

  @Test
  void inSegmentsSortedNewestRowFirstTiesBelowThePageAreSkipped() throws IOException {
    try (ByteBuffersDirectory directory = new ByteBuffersDirectory()) {
      SplittableRandom random = new SplittableRandom(11);
      IndexWriterConfig config = new IndexWriterConfig(TextAnalysis.ANALYZER);
      config.setIndexSort(new Sort(new SortField("row", SortField.Type.LONG, true)));
      try (IndexWriter writer = new IndexWriter(directory, config)) {
        for (int i = 0; i < DOCS; i++) {
          // Most documents tie exactly; one in a hundred is longer and scores lower.
          String text = i % 100 == 0 ? "release notes for this week" : "release notes";
          Document doc = new Document();
          doc.add(new TextField("text", text, Field.Store.NO));
          // Rows rise as documents are added, as the store's row keys do: the order in which an
          // unsorted segment would hand every tie to the queue.
          doc.add(new NumericDocValuesField("row", 1_000L * i + random.nextInt(1_000)));
          writer.addDocument(doc);
          if (i % 3_000 == 0) {
            writer.commit();
          }
        }
      }
      try (DirectoryReader reader = DirectoryReader.open(directory)) {
        assertTrue(reader.leaves().size() > 1, "several segments");
        IndexSearcher searcher = new IndexSearcher(reader);
        Query query = new TermQuery(new Term("text", TextAnalysis.terms("release").get(0)));
        List<TopRelevance.Hit> expected = fullSort(searcher, query);

        assertPagesEqualTheFullSortScoringFewerThan(searcher, query, expected, DOCS / 20);
        List<TopRelevance.Hit> deep = searcher.search(query, new TopRelevance("row", 500, null));
        assertEquals(expected.subList(0, 500), deep);
        List<TopRelevance.Hit> all =
            searcher.search(query, new TopRelevance("row", DOCS - 50, null));
        assertEquals(expected.subList(0, DOCS - 50), all);
      }
    }
  }

  /**
   * The first page of 10 equals the full sort's and scores fewer than {@code maxScored} matches;
   * the four pages after it, by cursor, equal the full sort's too.
   */
  private static void assertPagesEqualTheFullSortScoringFewerThan(
      IndexSearcher searcher, Query query, List<TopRelevance.Hit> expected, int maxScored)
      throws IOException {
    AtomicLong collected = new AtomicLong();
    List<TopRelevance.Hit> first =
        searcher.search(query, counting(new TopRelevance("row", 10, null), collected));
    assertEquals(expected.subList(0, 10), first);
    assertTrue(
        collected.get() < maxScored,
        "scored " + collected.get() + " of " + expected.size() + " matches for a page of 10");

    TopRelevance.Hit cursor = first.get(first.size() - 1);
    for (int page = 1; page < 5; page++) {
      List<TopRelevance.Hit> next = searcher.search(query, new TopRelevance("row", 10, cursor));
      assertEquals(expected.subList(page * 10, page * 10 + 10), next, "page " + page);
      cursor = next.get(next.size() - 1);
    }
  }

  private static List<TopRelevance.Hit> fullSort(IndexSearcher searcher, Query query)
      throws IOException {
    Sort sort = new Sort(SortField.FIELD_SCORE, new SortField("row", SortField.Type.LONG, true));
    List<TopRelevance.Hit> hits = new ArrayList<>();
    for (ScoreDoc doc :
        searcher.search(query, new TopFieldCollectorManager(sort, DOCS, null, Integer.MAX_VALUE))
            .scoreDocs) {
      FieldDoc fields = (FieldDoc) doc;
      hits.add(new TopRelevance.Hit((Long) fields.fields[1], (Float) fields.fields[0], doc.doc));
    }
    return hits;
  }

  /** {@code manager}, counting the documents handed to its collectors. */
  private static CollectorManager<Collector, List<TopRelevance.Hit>> counting(
      TopRelevance manager, AtomicLong collected) {
    return new CollectorManager<>() {
      private final List<TopRelevance.Top> made = new ArrayList<>();

      @Override
      public Collector newCollector() {
        TopRelevance.Top top = manager.newCollector();
        made.add(top);
        return new Collector() {
          @Override
          public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
            LeafCollector leaf = top.getLeafCollector(context);
            return new LeafCollector() {
              @Override
              public void setScorer(Scorable scorer) throws IOException {
                leaf.setScorer(scorer);
              }

              @Override
              public void collect(int doc) throws IOException {
                collected.incrementAndGet();
                leaf.collect(doc);
              }
            };
          }

          @Override
          public ScoreMode scoreMode() {
            return top.scoreMode();
          }
        };
      }

      @Override
      public List<TopRelevance.Hit> reduce(Collection<Collector> collectors) {
        return manager.reduce(made);
      }
    };
  }
}
