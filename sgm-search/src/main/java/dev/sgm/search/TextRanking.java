package dev.sgm.search;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TopFieldCollectorManager;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.search.TotalHits;

/**
 * A page of a search by words, ranked by BM25F, or of a search in an order of time (with or without
 * words), each after the previous page's last hit.
 */
final class TextRanking {
  private TextRanking() {}

  /** The page {@code search} asks for. */
  static SearchResult rank(PreparedSearch search) throws IOException {
    SearchQuery q = search.query();
    Query query;
    if (q.text() == null) {
      query = search.filter();
    } else if (search.terms().isEmpty()) {
      return search.result(List.of(), 0, false);
    } else {
      query = TextQuery.filtered(search);
    }
    if (q.order() == SearchQuery.Order.RELEVANCE && q.text() != null) {
      return byRelevance(search, query);
    }
    return sorted(search, query);
  }

  /** The best hits by score, collected so that the scorer skips what cannot enter the page. */
  private static SearchResult byRelevance(PreparedSearch search, Query query) throws IOException {
    SearchQuery q = search.query();
    IndexSearcher searcher = search.searcher();
    TopRelevance.Hit after =
        q.after() == null
            ? null
            : new TopRelevance.Hit(q.after().rowKey(), (float) q.after().value(), -1);
    List<TopRelevance.Hit> top =
        searcher.search(query, new TopRelevance(IndexFields.ROW, q.limit() + 1, after));
    List<SearchResult.Hit> hits = new ArrayList<>();
    for (TopRelevance.Hit hit : top.subList(0, Math.min(q.limit(), top.size()))) {
      hits.add(new SearchResult.Hit(hit.rowKey(), hit.score()));
    }
    return search.result(hits, searcher.count(query), top.size() > q.limit());
  }

  /** The hits in the query's order of time (or of score, ties by row key), after its cursor. */
  private static SearchResult sorted(PreparedSearch search, Query query) throws IOException {
    SearchQuery q = search.query();
    IndexSearcher searcher = search.searcher();
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
            query,
            new TopFieldCollectorManager(sort(q.order()), q.limit() + 1, after, q.limit() + 1));
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
    return search.result(hits, total, top.scoreDocs.length > q.limit());
  }

  private static Sort sort(SearchQuery.Order order) {
    SortField row =
        new SortField(
            IndexFields.ROW,
            SortField.Type.LONG,
            order != SearchQuery.Order.CREATED_ASC && order != SearchQuery.Order.UPDATED_ASC);
    return switch (order) {
      case RELEVANCE -> new Sort(SortField.FIELD_SCORE, row);
      case UPDATED_DESC ->
          new Sort(new SortField(IndexFields.UPDATED, SortField.Type.LONG, true), row);
      case UPDATED_ASC ->
          new Sort(new SortField(IndexFields.UPDATED, SortField.Type.LONG, false), row);
      case CREATED_DESC ->
          new Sort(new SortField(IndexFields.CREATED, SortField.Type.LONG, true), row);
      case CREATED_ASC ->
          new Sort(new SortField(IndexFields.CREATED, SortField.Type.LONG, false), row);
    };
  }
}
