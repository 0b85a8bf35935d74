package dev.sgm.search;

import java.util.List;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;

/**
 * A search ready to rank: the searcher that ranks it (with the statistics it must use), the query,
 * its filter, its analysed terms, and what the answer must carry along.
 *
 * @param used the text statistics the ranking takes, for later pages to reuse
 * @param truncated how many analysed terms were left out for being too many
 * @param accepted the documents recent filters passed, for the search by meaning
 */
record PreparedSearch(
    IndexSearcher searcher,
    SearchQuery query,
    Query filter,
    List<String> terms,
    Statistics used,
    int truncated,
    AcceptedByFilter accepted) {

  /** An answer of {@code hits} that freezes the statistics used. */
  SearchResult result(List<SearchResult.Hit> hits, long total, boolean more) {
    return new SearchResult(hits, total, more, new SearchQuery.Frozen(used), truncated);
  }
}
