package dev.sgm.search;

import static dev.sgm.search.IndexFields.keyword;

import java.util.List;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.KnnFloatVectorField;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.document.TextField;
import org.apache.lucene.index.VectorSimilarityFunction;

/** How an {@link IndexedRecord} becomes the Lucene document that the index keeps for it. */
final class RecordDocument {
  /** How many times a word in the title, and in the tags, counts as often as one in the content. */
  static final int TITLE_WEIGHT = 3;

  static final int TAGS_WEIGHT = 2;

  private RecordDocument() {}

  /** The document of {@code r}: every field a search filters on, its text and its embedding. */
  static Document of(IndexedRecord r) {
    Document doc = new Document();
    doc.add(new StringField(IndexFields.KEY, r.key(), Field.Store.NO));
    doc.add(new NumericDocValuesField(IndexFields.ROW, r.rowKey()));
    doc.add(new StringField(IndexFields.SCOPE, keyword(r.scope()), Field.Store.NO));
    for (String pair : r.scopePairs()) {
      doc.add(new StringField(IndexFields.PAIR, keyword(pair), Field.Store.NO));
    }
    doc.add(new StringField(IndexFields.ID, keyword(r.id()), Field.Store.NO));
    doc.add(new StringField(IndexFields.TYPE, keyword(r.type()), Field.Store.NO));
    for (String tag : r.tags()) {
      doc.add(new StringField(IndexFields.TAG, keyword(tag), Field.Store.NO));
    }
    for (String field : r.fields()) {
      doc.add(new StringField(IndexFields.FIELD, keyword(field), Field.Store.NO));
    }
    doc.add(new LongPoint(IndexFields.CREATED, r.createdMicros()));
    doc.add(new NumericDocValuesField(IndexFields.CREATED, r.createdMicros()));
    doc.add(new LongPoint(IndexFields.UPDATED, r.updatedMicros()));
    doc.add(new NumericDocValuesField(IndexFields.UPDATED, r.updatedMicros()));
    doc.add(new LongPoint(IndexFields.CREATED_SEQ, r.createdSeq()));
    doc.add(new LongPoint(IndexFields.LEVEL, r.level()));
    addText(doc, r);
    if (r.vector() != null) {
      doc.add(
          new KnnFloatVectorField(
              IndexFields.VECTOR, r.vector(), VectorSimilarityFunction.DOT_PRODUCT));
      doc.add(new StringField(IndexFields.HAS_VECTOR, "y", Field.Store.NO));
      doc.add(new LongPoint(IndexFields.VECTOR_GENERATION, r.vectorGeneration()));
    }
    return doc;
  }

  /**
   * Indexes the ranked text as one field, BM25F's way: the title {@link #TITLE_WEIGHT} times and
   * the tags {@link #TAGS_WEIGHT} times over, then the content, so a word's frequency and the
   * field's length each count a title word as three content words. One field, unlike a query
   * combining three, gives a score whose upper bound per block of documents is known, so a top-k
   * search skips the matches that cannot enter the page; and one field's statistics weigh a word's
   * rarity over all the text, not over the few records that have titles.
   */
  private static void addText(Document doc, IndexedRecord r) {
    String tags = r.tags().isEmpty() ? null : String.join(" ", r.tags());
    for (String field : List.of(IndexFields.TEXT, IndexFields.HEADING)) {
      for (int i = 0; r.title() != null && i < TITLE_WEIGHT; i++) {
        doc.add(new TextField(field, r.title(), Field.Store.NO));
      }
      for (int i = 0; tags != null && i < TAGS_WEIGHT; i++) {
        doc.add(new TextField(field, tags, Field.Store.NO));
      }
    }
    if (r.content() != null) {
      doc.add(new TextField(IndexFields.TEXT, r.content(), Field.Store.NO));
    }
  }
}
