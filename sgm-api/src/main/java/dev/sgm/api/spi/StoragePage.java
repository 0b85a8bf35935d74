package dev.sgm.api.spi;

import java.util.List;

/**
 * A page of query results.
 *
 * @param total every match, not just this page
 * @param mark the paging mark the page was read at, to pass on to the next page
 */
public record StoragePage(List<Row> rows, long total, long mark) {
  /** One matching row: its document text and its position in the order. */
  public record Row(String document, StorageQuery.Position position) {}

  public StoragePage {
    rows = List.copyOf(rows);
  }
}
