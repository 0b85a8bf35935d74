package dev.sgm.api.spi;

import java.util.List;
import java.util.Map;

/**
 * What the engine indexes of a record, so every storage searches alike: its tags, its full-text
 * terms with integer weights, and the scalar leaves of {@code data} and {@code metadata}.
 *
 * @param terms term to weight; a record's score for a query is the sum of its weights for the
 *     query's terms
 * @param fields each (dotted path, normalised value) pair the record carries
 */
public record RecordIndex(List<String> tags, Map<String, Integer> terms, List<FieldValue> fields) {
  public RecordIndex {
    tags = List.copyOf(tags);
    terms = Map.copyOf(terms);
    fields = List.copyOf(fields);
  }

  /** A scalar leaf: path such as {@code data.state}, value in the engine's normalised text form. */
  public record FieldValue(String path, String value) {}
}
