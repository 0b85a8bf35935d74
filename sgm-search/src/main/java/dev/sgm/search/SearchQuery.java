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
 * @param vector the query's embedding for semantic and hybrid ranking, or null: its similarity to a
 *     record's embedding orders and scores the record by meaning
 * @param matchingVector what decides whether a record matches by meaning, compared (as a cosine)
 *     with the first {@code matchingVector.length} dimensions of its embedding; the same array as
 *     {@code vector} when that decides too
 * @param scale how to read the closeness of the model that made {@code vector}, or null without one
 * @param minScore the lowest score a semantic or hybrid result may have ({@link Relevance}'s
 *     scale); 0 for the floors alone
 * @param offset how many results earlier pages returned (for the depth of candidate lists)
 * @param after the last result of the previous page, or null for the first page
 * @param frozen the ranking statistics of the first page, or null to take them now
 * @param within when not null, only records whose scope has all the canonical pairs of one of these
 *     lists match (the scopes the caller may read); an empty list matches nothing
 * @param clearance the highest {@link IndexedRecord#level()} whose withheld parts count: a record
 *     above it matches the text by its title and tags only, is not ranked by meaning, and matches
 *     none of {@code withheldFields}; {@link #ALL_LEVELS} for all
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
    float[] matchingVector,
    MeaningScale scale,
    double minScore,
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
    /** Both, each on {@link Relevance}'s shared scale, in the model's weighted sum. */
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

  /** What makes later pages rank exactly as the first: the text statistics. */
  public record Frozen(Statistics statistics) {}

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
    if (vector != null) {
      Objects.requireNonNull(scale, "scale");
      Objects.requireNonNull(matchingVector, "matchingVector");
      if (matchingVector.length == 0 || matchingVector.length > vector.length) {
        throw new IllegalArgumentException(
            "the matching vector has "
                + matchingVector.length
                + " dimensions, the vector "
                + vector.length);
      }
    }
  }

  /**
   * Starts a search of every record for a first page of {@code limit}: ranked by {@code ranking}
   * when {@code text} is not null, else oldest first; no filter, every level cleared. The builder
   * names each part, where the record's two dozen positional arguments would not.
   */
  public static Builder of(String text, Ranking ranking, int limit) {
    return new Builder(text, ranking, limit);
  }

  /** Sets the parts a search leaves at their defaults in {@link #of}. */
  public static final class Builder {
    private final String text;
    private final Ranking ranking;
    private final int limit;
    private Set<String> scopes = Set.of();
    private List<String> requiredPairs;
    private List<String> ids = List.of();
    private List<String> types = List.of();
    private List<String> tags = List.of();
    private boolean anyTag;
    private List<String> fields = List.of();
    private Long createdAfter;
    private Long createdBefore;
    private Long updatedAfter;
    private long mark = Long.MAX_VALUE;
    private float[] vector;
    private float[] matchingVector;
    private MeaningScale scale;
    private double minScore;
    private long vectorGeneration = Long.MAX_VALUE;
    private Order order;
    private int offset;
    private After after;
    private Frozen frozen;
    private List<List<String>> within;
    private int clearance = ALL_LEVELS;
    private List<String> withheldFields = List.of();

    private Builder(String text, Ranking ranking, int limit) {
      this.text = text;
      this.ranking = ranking;
      this.limit = limit;
      this.order = text == null ? Order.CREATED_ASC : Order.RELEVANCE;
    }

    /** Only records of these canonical scopes. */
    public Builder scopes(Set<String> scopes) {
      this.scopes = scopes;
      return this;
    }

    /**
     * When not null, records whose scope has all of these canonical pairs match too (see {@link
     * SearchQuery#requiredPairs()}).
     */
    public Builder requiredPairs(List<String> requiredPairs) {
      this.requiredPairs = requiredPairs;
      return this;
    }

    /** Only records of these ids (none: any id). */
    public Builder ids(List<String> ids) {
      this.ids = ids;
      return this;
    }

    /** Only records of these types. */
    public Builder types(List<String> types) {
      this.types = types;
      return this;
    }

    /** Only records with every one of these tags, or with any of them when {@code any}. */
    public Builder tags(List<String> tags, boolean any) {
      this.tags = tags;
      this.anyTag = any;
      return this;
    }

    /** Only records with all of these canonical {@code path NUL value} pairs. */
    public Builder fields(List<String> fields) {
      this.fields = fields;
      return this;
    }

    /** Only records created after this time (exclusive, microseconds), unless null. */
    public Builder createdAfter(Long micros) {
      this.createdAfter = micros;
      return this;
    }

    /** Only records created before this time (exclusive, microseconds), unless null. */
    public Builder createdBefore(Long micros) {
      this.createdBefore = micros;
      return this;
    }

    /** Only records updated after this time (exclusive, microseconds), unless null. */
    public Builder updatedAfter(Long micros) {
      this.updatedAfter = micros;
      return this;
    }

    /** Only records created at or before this sequence number. */
    public Builder mark(long mark) {
      this.mark = mark;
      return this;
    }

    /** The order of the results, in place of the one {@link #of} chose. */
    public Builder order(Order order) {
      this.order = order;
      return this;
    }

    /** How many results earlier pages returned. */
    public Builder offset(int offset) {
      this.offset = offset;
      return this;
    }

    /**
     * Ranks by closeness to {@code vector}, which also decides what matches, made by the model
     * whose closeness {@code scale} reads.
     */
    public Builder vector(float[] vector, MeaningScale scale) {
      return vector(vector, vector, scale);
    }

    /**
     * Ranks by closeness to {@code vector}; {@code matchingVector} decides what matches (see {@link
     * SearchQuery#matchingVector()}).
     */
    public Builder vector(float[] vector, float[] matchingVector, MeaningScale scale) {
      this.vector = vector;
      this.matchingVector = matchingVector;
      this.scale = scale;
      return this;
    }

    /** The lowest score a semantic or hybrid result may have; 0 for the floors alone. */
    public Builder minScore(double minScore) {
      this.minScore = minScore;
      return this;
    }

    /** Only embeddings added at or before this generation rank by meaning. */
    public Builder vectorGeneration(long vectorGeneration) {
      this.vectorGeneration = vectorGeneration;
      return this;
    }

    /** The page after {@code after}, ranked with the first page's {@code frozen} statistics. */
    public Builder after(After after, Frozen frozen) {
      this.after = after;
      this.frozen = frozen;
      return this;
    }

    /** Only records within these readable scopes (see {@link SearchQuery#within()}). */
    public Builder within(List<List<String>> within) {
      this.within = within;
      return this;
    }

    /** The highest level whose withheld parts count, and the fields only those may match. */
    public Builder clearance(int clearance, List<String> withheldFields) {
      this.clearance = clearance;
      this.withheldFields = withheldFields;
      return this;
    }

    public SearchQuery build() {
      return new SearchQuery(
          scopes,
          requiredPairs,
          ids,
          types,
          tags,
          anyTag,
          fields,
          createdAfter,
          createdBefore,
          updatedAfter,
          mark,
          vectorGeneration,
          text,
          ranking,
          vector,
          matchingVector,
          scale,
          minScore,
          order,
          limit,
          offset,
          after,
          frozen,
          within,
          clearance,
          withheldFields);
    }
  }

  /** True when some records may be above the clearance. */
  boolean restrictsLevels() {
    return clearance != ALL_LEVELS;
  }
}
