package dev.sgm.search;

import static dev.sgm.search.IndexFields.keyword;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.MatchAllDocsQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.util.BytesRef;

/**
 * Every criterion of a search other than its text as one Lucene filter, so that the index ranks
 * only what passes them (scopes, ids, types, tags, readable scopes, data fields, levels, times and
 * the paging mark).
 */
final class FilterQuery {
  private FilterQuery() {}

  /** The filter of {@code q} over the index {@code reader} reads. */
  static Query of(SearchQuery q, IndexReader reader) throws IOException {
    BooleanQuery.Builder all = new BooleanQuery.Builder();
    all.add(scopes(q), Occur.FILTER);
    if (!q.ids().isEmpty()) {
      all.add(termsQuery(IndexFields.ID, q.ids()), Occur.FILTER);
    }
    if (!q.types().isEmpty()) {
      all.add(termsQuery(IndexFields.TYPE, q.types()), Occur.FILTER);
    }
    addTags(all, q);
    if (q.within() != null) {
      all.add(readable(q.within()), Occur.FILTER);
    }
    addFields(all, q);
    addTimes(all, q, reader);
    return all.build();
  }

  /**
   * The records of the query's scopes or, for descendant modes, of every scope with its required
   * pairs: either condition passes; every record when the query names neither.
   */
  private static Query scopes(SearchQuery q) {
    Query byScope = q.scopes().isEmpty() ? null : termsQuery(IndexFields.SCOPE, q.scopes());
    Query byPairs = q.requiredPairs() == null ? null : allPairs(q.requiredPairs());
    if (byScope != null && byPairs != null) {
      return new BooleanQuery.Builder()
          .add(byScope, Occur.SHOULD)
          .add(byPairs, Occur.SHOULD)
          .setMinimumNumberShouldMatch(1)
          .build();
    } else if (byScope != null || byPairs != null) {
      return byScope != null ? byScope : byPairs;
    }
    return MatchAllDocsQuery.INSTANCE;
  }

  /** The records whose scope has every one of {@code pairs}. */
  private static Query allPairs(List<String> pairs) {
    BooleanQuery.Builder all = new BooleanQuery.Builder();
    for (String pair : pairs) {
      all.add(new TermQuery(new Term(IndexFields.PAIR, keyword(pair))), Occur.FILTER);
    }
    return all.build();
  }

  private static void addTags(BooleanQuery.Builder all, SearchQuery q) {
    if (q.tags().isEmpty()) {
      return;
    }
    if (q.anyTag()) {
      all.add(termsQuery(IndexFields.TAG, q.tags()), Occur.FILTER);
    } else {
      for (String tag : q.tags()) {
        all.add(new TermQuery(new Term(IndexFields.TAG, keyword(tag))), Occur.FILTER);
      }
    }
  }

  /** The records within one of the scopes the caller may read; none when it may read none. */
  private static Query readable(List<List<String>> within) {
    BooleanQuery.Builder readable = new BooleanQuery.Builder();
    for (List<String> scope : within) {
      readable.add(allPairs(scope), Occur.SHOULD);
    }
    if (within.isEmpty()) {
      readable.add(MatchAllDocsQuery.INSTANCE, Occur.MUST_NOT);
    } else {
      readable.setMinimumNumberShouldMatch(1);
    }
    return readable.build();
  }

  /** The data fields, and the withheld ones, which only a record within the clearance may match. */
  private static void addFields(BooleanQuery.Builder all, SearchQuery q) {
    for (String field : q.fields()) {
      all.add(new TermQuery(new Term(IndexFields.FIELD, keyword(field))), Occur.FILTER);
    }
    for (String field : q.withheldFields()) {
      all.add(new TermQuery(new Term(IndexFields.FIELD, keyword(field))), Occur.FILTER);
    }
    if (q.restrictsLevels() && !q.withheldFields().isEmpty()) {
      all.add(atMost(IndexFields.LEVEL, q.clearance(), 0), Occur.FILTER);
    }
  }

  private static void addTimes(BooleanQuery.Builder all, SearchQuery q, IndexReader reader)
      throws IOException {
    if (q.createdAfter() != null) {
      all.add(atLeast(IndexFields.CREATED, q.createdAfter(), 1), Occur.FILTER);
    }
    if (q.createdBefore() != null) {
      all.add(atMost(IndexFields.CREATED, q.createdBefore(), 1), Occur.FILTER);
    }
    if (q.updatedAfter() != null) {
      all.add(atLeast(IndexFields.UPDATED, q.updatedAfter(), 1), Occur.FILTER);
    }
    // Only when a record created after the mark is in the index (a later page): otherwise the
    // bound excludes nothing, and filtering by it costs a pass over every record's point.
    if (q.mark() != Long.MAX_VALUE
        && q.mark() < IndexFields.maxPoint(reader, IndexFields.CREATED_SEQ)) {
      all.add(atMost(IndexFields.CREATED_SEQ, q.mark(), 0), Occur.FILTER);
    }
  }

  /**
   * The long point {@code field} at least {@code bound}, or above it when {@code exclusive} is 1.
   */
  static Query atLeast(String field, long bound, int exclusive) {
    return LongPoint.newRangeQuery(
        field, bound == Long.MAX_VALUE ? bound : bound + exclusive, Long.MAX_VALUE);
  }

  /**
   * The long point {@code field} at most {@code bound}, or below it when {@code exclusive} is 1.
   */
  static Query atMost(String field, long bound, int exclusive) {
    return LongPoint.newRangeQuery(
        field, Long.MIN_VALUE, bound == Long.MIN_VALUE ? bound : bound - exclusive);
  }

  private static Query termsQuery(String field, Collection<String> values) {
    if (values.size() == 1) {
      return new TermQuery(new Term(field, keyword(values.iterator().next())));
    }
    List<BytesRef> terms = new ArrayList<>(values.size());
    for (String value : values) {
      terms.add(new BytesRef(keyword(value)));
    }
    return new TermInSetQuery(field, terms);
  }
}
