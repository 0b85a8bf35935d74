package dev.sgm.search;

import java.util.List;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause.Occur;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.TermQuery;

/**
 * The ranked part of a search by words: any of the analysed terms over the weighted text, with what
 * a record above the caller's clearance withholds left out of matching.
 */
final class TextQuery {
  private TextQuery() {}

  /** The text query of {@code search}, within its filter. */
  static Query filtered(PreparedSearch search) {
    return new BooleanQuery.Builder()
        .add(of(search.query(), search.terms()), Occur.MUST)
        .add(search.filter(), Occur.FILTER)
        .build();
  }

  /**
   * The text query of {@code q}: over title, tags and content for the records within the caller's
   * clearance, over title and tags alone for those above it, whose content the caller may not see
   * and so must not find them by (withheld text ranks nothing).
   */
  static Query of(SearchQuery q, List<String> terms) {
    if (!q.restrictsLevels()) {
      return anyOf(terms, true);
    }
    Query cleared = FilterQuery.atMost(IndexFields.LEVEL, q.clearance(), 0);
    return new BooleanQuery.Builder()
        .add(
            new BooleanQuery.Builder()
                .add(anyOf(terms, true), Occur.MUST)
                .add(cleared, Occur.FILTER)
                .build(),
            Occur.SHOULD)
        .add(
            new BooleanQuery.Builder()
                .add(anyOf(terms, false), Occur.MUST)
                .add(cleared, Occur.MUST_NOT)
                .build(),
            Occur.SHOULD)
        .build();
  }

  /**
   * Any of the terms, each scored over the title, the tags and the content as one weighted field
   * (BM25F, see {@link RecordDocument}), or over the title and the tags alone.
   */
  private static Query anyOf(List<String> terms, boolean withContent) {
    BooleanQuery.Builder any = new BooleanQuery.Builder();
    for (String term : terms) {
      any.add(
          new TermQuery(new Term(withContent ? IndexFields.TEXT : IndexFields.HEADING, term)),
          Occur.SHOULD);
    }
    return any.build();
  }
}
