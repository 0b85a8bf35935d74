package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Scope;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.search.IndexedRecord;
import java.util.ArrayList;
import java.util.List;

/**
 * What the search index holds of a stored record, and what the embedding model reads of it: the one
 * mapping from a row to the index's document, which the follower, the matching of past states and
 * the index's queries all speak.
 */
final class IndexDocuments {
  private static final RecordIndexer INDEXER = new RecordIndexer();

  private IndexDocuments() {}

  /** The index's view of a stored row, with its embedding if there is one (else null). */
  static IndexedRecord of(
      StoredRecord row, ObjectNode document, float[] vector, long vectorGeneration) {
    RecordIndex filters = INDEXER.index(document);
    List<String> fields = new ArrayList<>(filters.fields().size());
    for (RecordIndex.FieldValue field : filters.fields()) {
      fields.add(fieldKey(field));
    }
    Scope scope = row.scope();
    return new IndexedRecord(
        scope.qualify(row.id()),
        row.rowKey(),
        scope.canonical(),
        scope.canonicalPairs(),
        row.id(),
        row.type(),
        filters.tags(),
        fields,
        text(document.get("title")),
        text(document.get("content")),
        row.createdMicros(),
        row.updatedMicros(),
        row.createdSeq(),
        row.version(),
        vector,
        vectorGeneration,
        Sensitivity.ofJson(document.path("sensitivity").path("level")).ordinal());
  }

  /** A data/metadata criterion as the index keeps it. */
  static String fieldKey(RecordIndex.FieldValue field) {
    return field.path() + '\u0000' + field.value();
  }

  /** What the embedding model reads of a record: its title and content. */
  static String embeddingText(JsonNode document) {
    String title = text(document.get("title"));
    String content = text(document.get("content"));
    StringBuilder text = new StringBuilder();
    if (title != null && !title.isBlank()) {
      text.append(title).append('\n');
    }
    if (content != null) {
      text.append(content);
    }
    return text.toString();
  }

  private static String text(JsonNode node) {
    return node != null && node.isTextual() ? node.textValue() : null;
  }
}
