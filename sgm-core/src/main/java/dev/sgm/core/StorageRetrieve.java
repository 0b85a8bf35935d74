package dev.sgm.core;

import dev.sgm.api.Caller;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.Scope;
import dev.sgm.api.spi.RecordIndex.FieldValue;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import java.util.ArrayList;
import java.util.List;

/**
 * A retrieve that needs no index (see {@link IndexedRetrieve#answers}), answered by storage's own
 * query: no text to rank by, and nothing to filter on that storage cannot see.
 */
final class StorageRetrieve {
  private static final System.Logger LOG = System.getLogger(StorageRetrieve.class.getName());

  private final Storage storage;

  StorageRetrieve(Storage storage) {
    this.storage = storage;
  }

  /** Answers {@code query} within the caller's readable scopes ({@code within}, null for all). */
  RetrieveResult retrieve(Caller caller, RetrieveQuery query, List<Scope> within) {
    List<FieldValue> filters = RecordIndexer.filters(query);
    Cursors.Cursor cursor = query.cursor() == null ? null : Cursors.decode(query);
    // Without text there is nothing to score by: relevance falls back to the tie-breaker order.
    RetrieveQuery.OrderBy orderBy =
        query.orderBy() == RetrieveQuery.OrderBy.RELEVANCE
            ? RetrieveQuery.OrderBy.UPDATED_AT
            : query.orderBy();
    StoragePage page =
        storage.query(
            new StorageQuery(
                query.scope(),
                query.scopeMode(),
                query.ids(),
                query.types(),
                query.tags(),
                query.tagsMode() == RetrieveQuery.TagsMode.ANY,
                filters,
                RecordIndexer.micros(query.createdAfter()),
                RecordIndexer.micros(query.createdBefore()),
                RecordIndexer.micros(query.updatedAfter()),
                orderBy,
                query.ascending(),
                query.limit() + 1,
                cursor == null ? null : cursor.after(),
                cursor == null ? -1 : cursor.mark(),
                within));
    List<StoragePage.Row> rows = page.rows();
    String next = null;
    if (rows.size() > query.limit()) {
      rows = rows.subList(0, query.limit());
      next = Cursors.encode(query, rows.get(rows.size() - 1).position(), page.mark());
    }
    List<MemoryRecord> records = new ArrayList<>(rows.size());
    for (StoragePage.Row row : rows) {
      MemoryRecord seen = Authorization.visible(caller, MemoryRecord.ofStoredText(row.document()));
      if (seen == null) {
        // Storage was asked for the readable scopes alone; this is the second line.
        LOG.log(
            System.Logger.Level.ERROR,
            "storage returned a record outside the caller's grants for " + query.scope());
        continue;
      }
      records.add(seen);
    }
    return new RetrieveResult(records, page.total(), next);
  }
}
