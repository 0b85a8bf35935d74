package dev.sgm.api.spi;

import java.util.List;

/**
 * What the engine indexes of a record in storage, so every storage filters alike: its tags, and the
 * scalar leaves of {@code data} and {@code metadata}. (Text is ranked by the search index, which
 * follows the storage's changes.)
 *
 * @param fields each (dotted path, normalised value) pair the record carries
 */
public record RecordIndex(List<String> tags, List<FieldValue> fields) {
  /** An index with nothing in it, for a hidden row: it matches no query. */
  public static final RecordIndex NONE = new RecordIndex(List.of(), List.of());

  public RecordIndex {
    tags = List.copyOf(tags);
    fields = List.copyOf(fields);
  }

  /** A scalar leaf: path such as {@code data.state}, value in the engine's normalised text form. */
  public record FieldValue(String path, String value) {}
}
