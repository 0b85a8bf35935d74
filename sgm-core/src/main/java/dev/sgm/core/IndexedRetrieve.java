package dev.sgm.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Json;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.RecordIndex.FieldValue;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.search.MeaningScale;
import dev.sgm.search.SearchIndex;
import dev.sgm.search.SearchQuery;
import dev.sgm.search.SearchResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * A retrieve answered by the search index: a text query, or one that filters on what a record above
 * the caller's clearance withholds. Every other criterion and the caller's readable scopes filter
 * inside the index query, the index ranks, and the page's records are read from storage, redacted
 * above the caller's clearance.
 */
final class IndexedRetrieve {
  private static final System.Logger LOG = System.getLogger(IndexedRetrieve.class.getName());

  /** The longest query text given to the embedding model. */
  static final int MAX_EMBEDDED_QUERY_CHARS = 2000;

  private final SearchFollower search;
  private final ReadYourWrites readYourWrites;

  IndexedRetrieve(SearchFollower search) {
    this.search = search;
    this.readYourWrites = search.readYourWrites();
  }

  /**
   * Whether the index answers {@code query} rather than storage: a text query, or one that filters
   * on withheld fields for a caller who does not see every level. Storage does not know levels; the
   * index does, and leaves the records above the clearance out of a filter on what they withhold.
   */
  static boolean answers(Caller caller, RetrieveQuery query) {
    return query.text() != null
        || (!Authorization.seesAllLevels(caller) && !withheldFilters(query).isEmpty());
  }

  /** The filters on {@code data}, which a record above the caller's clearance withholds. */
  private static List<FieldValue> withheldFilters(RetrieveQuery query) {
    return RecordIndexer.filters(query).stream().filter(f -> withheld(f.path())).toList();
  }

  private static boolean withheld(String path) {
    return Authorization.WITHHELD.stream()
        .anyMatch(w -> path.equals(w) || path.startsWith(w + "."));
  }

  /** What one search through a mark found, with what it depended on then. */
  private record Found(SearchResult result, int pendingEmbeddings, long vectorGeneration) {}

  /** The records of a page as the caller sees them, with their scores. */
  private record Page(List<MemoryRecord> records, List<Double> scores) {}

  /**
   * Answers {@code query} within the caller's readable scopes ({@code within}, null for all).
   *
   * @see #answers
   */
  RetrieveResult retrieve(Caller caller, RetrieveQuery query, List<Scope> within) {
    boolean hasText = query.text() != null;
    boolean byRelevance = hasText && query.orderBy() == RetrieveQuery.OrderBy.RELEVANCE;
    RetrieveQuery.Mode mode = mode(query, byRelevance);
    Cursors.Relevance cursor = query.cursor() == null ? null : Cursors.decodeRelevance(query);
    ReadYourWrites.Mark start =
        cursor != null ? ReadYourWrites.laterPage(cursor.mark()) : readYourWrites.firstPage();
    // A model reads a few hundred words at most; a longer text would only cost time.
    String asked = query.text();
    boolean cut = hasText && asked.length() > MAX_EMBEDDED_QUERY_CHARS;
    Embedder.Question question =
        mode == RetrieveQuery.Mode.TEXT
            ? null
            : search.question(cut ? asked.substring(0, MAX_EMBEDDED_QUERY_CHARS) : asked);
    SearchQuery.Builder searchQuery =
        searchQuery(
            caller, query, within, mode, question, question == null ? null : scale(), cursor);
    ReadYourWrites.Answer<Found> answer =
        readYourWrites.search(
            start,
            mark -> find(searchQuery, mark, mode, cursor),
            found -> found.result().hits().stream().map(SearchResult.Hit::rowKey).toList());
    SearchResult result = answer.found().result();
    Page page = page(caller, query, result, answer.live());
    String next = null;
    if (result.more() && !result.hits().isEmpty()) {
      SearchResult.Hit last = result.hits().get(result.hits().size() - 1);
      next =
          Cursors.encodeRelevance(
              query,
              answer.mark(),
              answer.found().vectorGeneration(),
              new SearchQuery.After(last.value(), last.rowKey()),
              (cursor == null ? 0 : cursor.offset()) + result.hits().size(),
              result.frozen());
    }
    if (!hasText) {
      return new RetrieveResult(page.records(), result.total(), next);
    }
    ObjectNode retrieval =
        retrieval(mode, answer.found().pendingEmbeddings(), cut && question != null, result);
    return new RetrieveResult(
        page.records(), result.total(), next, byRelevance ? page.scores() : null, retrieval);
  }

  /** How to read the closeness of the active model, as it states it. */
  private MeaningScale scale() {
    Embedder.Calibration calibration =
        Objects.requireNonNull(
            search.embedder().calibration(), "the embedding model states no calibration");
    return new MeaningScale(
        calibration.recordFloor(),
        calibration.queryFloor(),
        calibration.meaningWeight(),
        calibration.scoreFloor());
  }

  /** The ranking asked for, or the default; {@code unsupported_capability} without a model. */
  private RetrieveQuery.Mode mode(RetrieveQuery query, boolean byRelevance) {
    Embedder embedder = search.embedder();
    RetrieveQuery.Mode mode = query.text() != null ? query.mode() : RetrieveQuery.Mode.TEXT;
    if (mode == null) {
      mode = embedder != null ? RetrieveQuery.Mode.HYBRID : RetrieveQuery.Mode.TEXT;
    }
    if (mode != RetrieveQuery.Mode.TEXT && embedder == null) {
      throw new SgmException(
          ErrorCode.UNSUPPORTED_CAPABILITY,
          "mode "
              + mode.wireName()
              + " needs an embedding model, and none is active here; put an embedder plugin"
              + " (sgm-embedding-bge-e5 with sgm-embedding-bge, or the latter alone) in plugins/,"
              + " or ask with mode text",
          List.of(new FieldError("mode", "no embedding model is active")));
    }
    if (!byRelevance) {
      // Ordered by time, the text selects the records (any analysed word) and time orders them.
      mode = RetrieveQuery.Mode.TEXT;
    }
    if (query.minScore() != null && mode == RetrieveQuery.Mode.TEXT) {
      throw SgmException.invalidRequest(
          "min_score",
          "applies to the 0..1 scores of semantic and hybrid ranking by relevance (text ranks by"
              + " BM25, on no fixed scale); this query is ranked "
              + (byRelevance ? "in mode text" : "by time"));
    }
    return mode;
  }

  /** The index query of {@code query}, but for its mark and vector generation. */
  private static SearchQuery.Builder searchQuery(
      Caller caller,
      RetrieveQuery query,
      List<Scope> within,
      RetrieveQuery.Mode mode,
      Embedder.Question question,
      MeaningScale scale,
      Cursors.Relevance cursor) {
    List<String> fields = new ArrayList<>();
    List<String> withheldFields = new ArrayList<>();
    for (FieldValue filter : RecordIndexer.filters(query)) {
      (withheld(filter.path()) ? withheldFields : fields).add(IndexDocuments.fieldKey(filter));
    }
    return SearchQuery.of(query.text(), SearchQuery.Ranking.valueOf(mode.name()), query.limit())
        .scopes(scopes(query))
        .requiredPairs(requiredPairs(query))
        .ids(query.ids())
        .types(query.types())
        .tags(query.tags(), query.tagsMode() == RetrieveQuery.TagsMode.ANY)
        .fields(fields)
        .createdAfter(RecordIndexer.micros(query.createdAfter()))
        .createdBefore(RecordIndexer.micros(query.createdBefore()))
        .updatedAfter(RecordIndexer.micros(query.updatedAfter()))
        .vector(
            question == null ? null : question.ordering(),
            question == null ? null : question.matching(),
            scale)
        .minScore(query.minScore() == null ? 0 : query.minScore())
        .order(order(query))
        .offset(cursor == null ? 0 : cursor.offset())
        .after(cursor == null ? null : cursor.after(), cursor == null ? null : cursor.frozen())
        .within(within == null ? null : within.stream().map(Scope::canonicalPairs).toList())
        .clearance(
            Authorization.seesAllLevels(caller)
                ? SearchQuery.ALL_LEVELS
                : caller.grants().clearance().ordinal(),
            withheldFields);
  }

  /** The canonical scopes a matching record's scope is one of (exact and ancestor modes). */
  private static Set<String> scopes(RetrieveQuery query) {
    Set<String> scopes = new LinkedHashSet<>();
    switch (query.scopeMode()) {
      case EXACT -> scopes.add(query.scope().canonical());
      case ANCESTORS, LINEAGE ->
          query.scope().selfAndAncestors().forEach(s -> scopes.add(s.canonical()));
      case DESCENDANTS -> {}
    }
    return scopes;
  }

  /** The canonical pairs every descendant's scope has (descendant modes), else null. */
  private static List<String> requiredPairs(RetrieveQuery query) {
    return switch (query.scopeMode()) {
      case DESCENDANTS, LINEAGE -> query.scope().canonicalPairs();
      case EXACT, ANCESTORS -> null;
    };
  }

  private static SearchQuery.Order order(RetrieveQuery query) {
    return switch (query.orderBy()) {
      case RELEVANCE ->
          query.text() != null
              ? SearchQuery.Order.RELEVANCE
              // Without text there is nothing to score by: as a structured retrieve.
              : query.ascending() ? SearchQuery.Order.UPDATED_ASC : SearchQuery.Order.UPDATED_DESC;
      case UPDATED_AT ->
          query.ascending() ? SearchQuery.Order.UPDATED_ASC : SearchQuery.Order.UPDATED_DESC;
      case CREATED_AT ->
          query.ascending() ? SearchQuery.Order.CREATED_ASC : SearchQuery.Order.CREATED_DESC;
    };
  }

  /** One search through {@code mark}, which the index shows by now. */
  private Found find(
      SearchQuery.Builder searchQuery,
      long mark,
      RetrieveQuery.Mode mode,
      Cursors.Relevance cursor) {
    // In this order: the records waiting for an embedding once every write up to the mark is
    // applied, then the generation, which includes every embedding that no longer waits. So
    // "none waiting" means this search ranks every record by meaning.
    if (mode != RetrieveQuery.Mode.TEXT && cursor == null) {
      // Every write before this search is in the index now; a first page waits for their
      // embeddings too, within bounds. Later pages rank by the first page's generation.
      search.awaitEarlierEmbeddings();
    }
    int pending = mode == RetrieveQuery.Mode.TEXT ? 0 : search.pendingEmbeddings();
    long generation = cursor != null ? cursor.vectorGeneration() : search.vectorGeneration();
    SearchResult result =
        search.search(searchQuery.mark(mark).vectorGeneration(generation).build());
    return new Found(result, pending, generation);
  }

  /**
   * The hits' records, in the index's order, as the caller sees them: a hit deleted since the index
   * answered is left out, and so (logged, as a bug) is one outside the query's scope or the
   * caller's grants.
   */
  private static Page page(
      Caller caller, RetrieveQuery query, SearchResult result, List<StoredRecord> live) {
    Map<Long, StoredRecord> rows = new HashMap<>();
    for (StoredRecord row : live) {
      rows.put(row.rowKey(), row);
    }
    List<MemoryRecord> records = new ArrayList<>(result.hits().size());
    List<Double> scores = new ArrayList<>(result.hits().size());
    for (SearchResult.Hit hit : result.hits()) {
      StoredRecord row = rows.get(hit.rowKey());
      if (row == null) {
        continue; // deleted since the index answered
      }
      if (!query.scopeMode().covers(query.scope(), row.scope())) {
        LOG.log(
            System.Logger.Level.ERROR,
            "the search index returned "
                + row.scope().qualify(row.id())
                + " outside the query's"
                + " scope; left out");
        continue;
      }
      MemoryRecord seen = Authorization.visible(caller, MemoryRecord.ofStoredText(row.document()));
      if (seen == null) {
        LOG.log(
            System.Logger.Level.ERROR,
            "the search index returned "
                + row.scope().qualify(row.id())
                + " outside the caller's grants; left out");
        continue;
      }
      records.add(seen);
      scores.add(hit.value());
    }
    return new Page(records, scores);
  }

  /** The answer's {@code retrieval} object: the mode, and what the search could not do in full. */
  private static ObjectNode retrieval(
      RetrieveQuery.Mode mode, int pending, boolean textCut, SearchResult result) {
    ObjectNode retrieval = Json.object();
    retrieval.put("mode", mode.wireName());
    if (pending > 0) {
      // Semantic search cannot find these yet; lexical search can.
      retrieval.put("pending_embeddings", pending);
    }
    if (textCut) {
      retrieval.put(
          "text_embedded",
          "the first " + MAX_EMBEDDED_QUERY_CHARS + " characters of the text were embedded");
    }
    if (result.truncatedTerms() > 0) {
      retrieval.put(
          "text_truncated",
          "searched the first "
              + SearchIndex.MAX_QUERY_TERMS
              + " distinct words of the text; "
              + result.truncatedTerms()
              + " more were left out");
    }
    return retrieval;
  }
}
