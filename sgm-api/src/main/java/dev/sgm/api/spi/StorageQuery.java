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
    long mark) {

  public StorageQuery {
    ids = List.copyOf(ids);
    types = List.copyOf(types);
    tags = List.copyOf(tags);
    filters = List.copyOf(filters);
  }

  /** A row's place in the order: its sort value (micros) and the storage's row key. */
  public record Position(long sortValue, long rowKey) {}
}
