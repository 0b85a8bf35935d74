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

  /** A row's place in the order: its sort value (micros) and the storage's row key. */
  public record Position(long sortValue, long rowKey) {}
}
