package dev.sgm.search;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A search as the engine hands it to the index: the filters (every retrieve criterion other than
 * the text), how to rank, and where the page starts.
 *
 * @param scopes records whose canonical scope is one of these match (exact and ancestor modes)
 * @param requiredPairs when not null, records whose scope has all of these canonical pairs match
 *     too (descendant modes); a record matches when either condition holds
 * @param fields canonical {@code path NUL value} pairs that must all be present
 * @param createdAfter exclusive lower bound on creation, microseconds, or null
 * @param mark only records created at or before this sequence number, or {@link Long#MAX_VALUE}
 * @param vectorGeneration only embeddings added at or before this generation rank by meaning; a
 *     record embedded later counts as not embedded yet, so that pages rank alike while embeddings
 *     arrive ({@link Long#MAX_VALUE}: all)
 * @param text the query text, or null for a query ordered by time
 * @param vector the query's embedding for semantic and hybrid ranking, or null
 * @param offset how many results earlier pages returned (for the depth of candidate lists)
 * @param after the last result of the previous page, or null for the first page
 * @param frozen the ranking statistics of the first page, or null to take them now
 * @param within when not null, only records whose scope has all the canonical pairs of one of these
 *     lists match (the scopes the caller may read); an empty list matches nothing
 * @param clearance the highest {@link IndexedRecord#level()} whose withheld parts count: a record
 *     above it matches the text by its title and tags only, ranks last by meaning (as one not
 *     embedded yet), and matches none of {@code withheldFields}; {@link #ALL_LEVELS} for all
 * @param withheldFields canonical {@code path NUL value} pairs that must all be present, of parts a
 *     record above the clearance withholds ({@code data}): such a record never matches them
 */
public record SearchQuery(
    Set<String> scopes,
    List<String> requiredPairs,
    List<String> ids,
    List<String> types,
    List<String> tags,
    boolean anyTag,
    List<String> fields,
    Long createdAfter,
    Long createdBefore,
    Long updatedAfter,
    long mark,
    long vectorGeneration,
    String text,
    Ranking ranking,
    float[] vector,
    Order order,
    int limit,
    int offset,
    After after,
    Frozen frozen,
    List<List<String>> within,
    int clearance,
    List<String> withheldFields) {

  /** A clearance that sees every level. */
  public static final int ALL_LEVELS = Integer.MAX_VALUE;

  /** How results are ranked. */
  public enum Ranking {
    /** BM25 over title, tags and content. */
    TEXT,
    /** By closeness of the record's embedding to the query's. */
    SEMANTIC,
    /** Both, each normalised within its candidates, then averaged. */
    HYBRID
  }

  /** The sort of the results. */
  public enum Order {
    RELEVANCE,
    UPDATED_DESC,
    UPDATED_ASC,
    CREATED_DESC,
    CREATED_ASC
  }

  /** A result's place in the order: its score (or time) and its row key. */
  public record After(double value, long rowKey) {}

  /**
   * What makes later pages rank exactly as the first: the text statistics, and the normalisation
   * bounds of the hybrid candidate lists.
   */
  public record Frozen(Statistics statistics, double[] bounds) {}

  public SearchQuery {
    scopes = Set.copyOf(scopes);
    requiredPairs = requiredPairs == null ? null : List.copyOf(requiredPairs);
    ids = List.copyOf(ids);
    types = List.copyOf(types);
    tags = List.copyOf(tags);
    fields = List.copyOf(fields);
    within = within == null ? null : within.stream().map(List::copyOf).toList();
    withheldFields = List.copyOf(withheldFields);
    Objects.requireNonNull(ranking, "ranking");
    Objects.requireNonNull(order, "order");
  }

  /** True when some records may be above the clearance. */
  boolean restrictsLevels() {
    return clearance != ALL_LEVELS;
  }
}
