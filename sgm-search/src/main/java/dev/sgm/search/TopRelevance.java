package dev.sgm.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.search.Collector;
import org.apache.lucene.search.CollectorManager;
import org.apache.lucene.search.LeafCollector;
import org.apache.lucene.search.Scorable;
import org.apache.lucene.search.ScoreMode;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;

/**
 * The best hits of a ranked query in relevance order, score descending and then row key descending,
 * optionally after a cursor's position.
 *
 * <p>Lucene's own field-sorted collector cannot let the scorer skip anything once the sort has a
 * second key, so it scores every match; this one tells the scorer the lowest score that can still
 * enter the page (ties included, since the row key may still place them), which lets the scorer
 * skip whole blocks of matches that cannot. Ranking a common word then costs about the page, not
 * the number of records that contain it.
 *
 * <p>In a segment sorted by row key descending (as {@link SearchIndex} sorts its segments), ties
 * arrive best first: once one ranks below the worst hit kept, so does every later tie in that
 * segment, and the scorer is told to skip them too. Without that, a word that gives many records
 * the same score would have each of them scored and its row key read.
 */
final class TopRelevance implements CollectorManager<TopRelevance.Top, List<TopRelevance.Hit>> {
  /**
   * One hit: the row key of its record, its score, and its document's id in the reader searched (-1
   * for a position given, such as a cursor's).
   */
  record Hit(long rowKey, float score, int doc) {}

  /** Worst first: lower score, then lower row key, ranks lower. */
  private static final Comparator<Hit> WORST_FIRST =
      Comparator.comparingDouble(Hit::score).thenComparingLong(Hit::rowKey);

  private final String rowField;
  private final int size;
  private final Hit after;
  private final float minScore;

  /**
   * @param rowField the numeric doc values field holding each document's row key
   * @param size how many hits to keep
   * @param after the position to start after, or null for the first page
   */
  TopRelevance(String rowField, int size, Hit after) {
    this(rowField, size, after, Float.NEGATIVE_INFINITY);
  }

  /**
   * @param minScore the lowest score a hit may have: the scorer may skip every match below it
   */
  TopRelevance(String rowField, int size, Hit after, float minScore) {
    if (size < 1) {
      throw new IllegalArgumentException("size must be at least 1");
    }
    this.rowField = rowField;
    this.size = size;
    this.after = after;
    this.minScore = minScore;
  }

  @Override
  public Top newCollector() {
    return new Top();
  }

  /** The best {@code size} hits of every collector, best first. */
  @Override
  public List<Hit> reduce(Collection<Top> collectors) {
    PriorityQueue<Hit> best = new PriorityQueue<>(size + 1, WORST_FIRST);
    for (Top top : collectors) {
      for (Hit hit : top.queue) {
        offer(best, hit);
      }
    }
    List<Hit> hits = new ArrayList<>(best);
    hits.sort(WORST_FIRST.reversed());
    return hits;
  }

  private boolean offer(PriorityQueue<Hit> queue, Hit hit) {
    if (queue.size() < size) {
      queue.add(hit);
      return true;
    }
    if (WORST_FIRST.compare(hit, queue.peek()) <= 0) {
      return false;
    }
    queue.poll();
    queue.add(hit);
    return true;
  }

  /** Whether {@code hit} ranks strictly after the cursor's position. */
  private boolean isAfterCursor(float score, long rowKey) {
    return after == null
        || score < after.score()
        || (score == after.score() && rowKey < after.rowKey());
  }

  /** Collects one slice of the index. */
  final class Top implements Collector {
    private final PriorityQueue<Hit> queue = new PriorityQueue<>(size + 1, WORST_FIRST);

    @Override
    public ScoreMode scoreMode() {
      return ScoreMode.TOP_SCORES;
    }

    @Override
    public LeafCollector getLeafCollector(LeafReaderContext context) throws IOException {
      NumericDocValues rows = DocValues.getNumeric(context.reader(), rowField);
      boolean newestFirst = sortedByRowDescending(context.reader().getMetaData().sort());
      return new LeafCollector() {
        private Scorable scorer;
        private float minCompetitive = Float.NEGATIVE_INFINITY;

        @Override
        public void setScorer(Scorable scorer) throws IOException {
          this.scorer = scorer;
          minCompetitive = Float.NEGATIVE_INFINITY;
          raiseMinCompetitive(minScore);
          updateMinCompetitive();
        }

        @Override
        public void collect(int doc) throws IOException {
          float score = scorer.score();
          // Once the page is full, the bound is at least the worst kept hit's score.
          if (score < minScore || (queue.size() == size && score < minCompetitive)) {
            return;
          }
          if (after != null && score > after.score()) {
            return;
          }
          if (!rows.advanceExact(doc)) {
            throw new IllegalStateException("a document without a row key");
          }
          long rowKey = rows.longValue();
          if (isAfterCursor(score, rowKey)
              && offer(queue, new Hit(rowKey, score, context.docBase + doc))) {
            updateMinCompetitive();
          } else if (newestFirst && queue.size() == size && rowKey < queue.peek().rowKey()) {
            // Row keys only fall from here on in this segment, and the worst kept hit only rises:
            // a later document must score above it to enter.
            raiseMinCompetitive(Math.nextUp(queue.peek().score()));
          }
        }

        private void updateMinCompetitive() throws IOException {
          if (queue.size() == size) {
            raiseMinCompetitive(queue.peek().score());
          }
        }

        private void raiseMinCompetitive(float score) throws IOException {
          if (score > minCompetitive) {
            minCompetitive = score;
            scorer.setMinCompetitiveScore(score);
          }
        }
      };
    }

    private boolean sortedByRowDescending(Sort sort) {
      if (sort == null || sort.getSort().length == 0) {
        return false;
      }
      SortField first = sort.getSort()[0];
      return first.getField().equals(rowField)
          && first.getType() == SortField.Type.LONG
          && first.getReverse();
    }
  }
}
