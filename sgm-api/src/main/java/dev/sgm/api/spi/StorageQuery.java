package dev.sgm.api.spi;

import dev.sgm.api.RetrieveQuery.OrderBy;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import java.util.List;

/**
 * A retrieve without text as the engine hands it to storage, ordered by time: every criterion
 * already validated and normalised the way the index was written. (Text goes to the search index.)
 *
 * @param after the position of the previous page's last row, or null for the first page
 * @param mark the paging mark from the first page, or {@code -1} to take a new one; rows created
 *     after the mark are left out so that later pages neither repeat nor skip
 * @param within when not null, only records whose scope is one of these scopes or narrower than one
 *     match (the scopes a caller may read, for one whose grants do not cover the whole query); an
 *     empty list matches nothing. Null: no restriction beyond the query's scope.
 */
public record StorageQuery(
    Scope scope,
    ScopeMode scopeMode,
    List<String> ids,
    List<String> types,
    List<String> tags,
    boolean anyTag,
    List<RecordIndex.FieldValue> filters,
    Long createdAfterMicros,
    Long createdBeforeMicros,
    Long updatedAfterMicros,
    OrderBy orderBy,
    boolean ascending,
    int limit,
    Position after,
    long mark,
    List<Scope> within) {

  public StorageQuery {
    within = within == null ? null : List.copyOf(within);
    ids = List.copyOf(ids);
    types = List.copyOf(types);
    tags = List.copyOf(tags);
    filters = List.copyOf(filters);
  }

  /** True when a record of {@code recordScope} lies within {@link #within()}. */
  public boolean withinReadable(Scope recordScope) {
    if (within == null) {
      return true;
    }
    for (Scope readable : within) {
      if (readable.contains(recordScope)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Starts a query of {@code scope} in {@code mode} for a first page of {@code limit}: no other
   * criterion, the most recently updated first. For storages' tests and tools; the engine builds
   * its queries whole.
   */
  public static Builder of(Scope scope, ScopeMode mode, int limit) {
    return new Builder(scope, mode, limit);
  }

  /** Sets the criteria a query leaves at their defaults in {@link #of}. */
  public static final class Builder {
    private final Scope scope;
    private final ScopeMode mode;
    private final int limit;
    private List<String> ids = List.of();
    private List<String> types = List.of();
    private List<String> tags = List.of();
    private boolean anyTag;
    private List<RecordIndex.FieldValue> filters = List.of();
    private OrderBy orderBy = OrderBy.UPDATED_AT;
    private boolean ascending;
    private Position after;
    private long mark = -1;
    private List<Scope> within;

    private Builder(Scope scope, ScopeMode mode, int limit) {
      this.scope = scope;
      this.mode = mode;
      this.limit = limit;
    }

    /** Only records of these ids. */
    public Builder ids(List<String> ids) {
      this.ids = ids;
      return this;
    }

    /** Only records of these types. */
    public Builder types(List<String> types) {
      this.types = types;
      return this;
    }

    /** Only records with every one of {@code tags}, or with any when {@code any}. */
    public Builder tags(List<String> tags, boolean any) {
      this.tags = tags;
      this.anyTag = any;
      return this;
    }

    /** Only records with every one of these indexed field values. */
    public Builder filters(List<RecordIndex.FieldValue> filters) {
      this.filters = filters;
      return this;
    }

    /** The order of the rows. */
    public Builder orderBy(OrderBy orderBy, boolean ascending) {
      this.orderBy = orderBy;
      this.ascending = ascending;
      return this;
    }

    /** The page after {@code after}, counted at the first page's {@code mark}. */
    public Builder after(Position after, long mark) {
      this.after = after;
      this.mark = mark;
      return this;
    }

    /** Only records within these readable scopes (see {@link StorageQuery#within()}). */
    public Builder within(List<Scope> within) {
      this.within = within;
      return this;
    }

    public StorageQuery build() {
      return new StorageQuery(
          scope, mode, ids, types, tags, anyTag, filters, null, null, null, orderBy, ascending,
          limit, after, mark, within);
    }
  }

  /** A row's place in the order: its sort value (micros) and the storage's row key. */
  public record Position(long sortValue, long rowKey) {}
}
