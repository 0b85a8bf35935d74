package dev.sgm.search;

import java.util.List;
import java.util.Objects;

/**
 * One record as the index keeps it: its identity, everything a retrieve can filter on, the text it
 * is ranked by, and optionally its embedding.
 *
 * @param key the record's identity in the index (its qualified id); one document per key
 * @param rowKey the storage's stable key of the row, by which hits are fetched and ties broken
 * @param scope the canonical scope string
 * @param scopePairs the scope's canonical {@code key=value} pairs, for descendant queries
 * @param fields each {@code path}, NUL, {@code normalised value} pair of {@code data}/{@code
 *     metadata} leaves
 * @param createdSeq the write sequence number at which the record was (last) created, for paging
 *     marks
 * @param vector the record's embedding, or null when it has none yet
 * @param vectorGeneration when the embedding was added (see {@link SearchQuery#vectorGeneration()})
 * @param level the record's sensitivity level as a number (0 public … 3 secret), by which a search
 *     for a caller of a lower clearance leaves its withheld text and data out of matching
 */
public record IndexedRecord(
    String key,
    long rowKey,
    String scope,
    List<String> scopePairs,
    String id,
    String type,
    List<String> tags,
    List<String> fields,
    String title,
    String content,
    long createdMicros,
    long updatedMicros,
    long createdSeq,
    long version,
    float[] vector,
    long vectorGeneration,
    int level) {
  public IndexedRecord {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(scope, "scope");
    scopePairs = List.copyOf(scopePairs);
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    tags = List.copyOf(tags);
    fields = List.copyOf(fields);
  }
}
