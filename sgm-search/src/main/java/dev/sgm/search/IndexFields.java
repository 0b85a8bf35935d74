package dev.sgm.search;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.PointValues;
import org.apache.lucene.index.ReaderUtil;

/**
 * The fields of the index's documents: their names, how a keyword becomes a term, and what is read
 * back from them, shared by the documents that write them and the queries that search them.
 */
final class IndexFields {
  static final String KEY = "key";
  static final String ROW = "row";
  static final String SCOPE = "scope";
  static final String PAIR = "pair";
  static final String ID = "id";
  static final String TYPE = "type";
  static final String TAG = "tag";
  static final String FIELD = "field";
  static final String CREATED = "created";
  static final String UPDATED = "updated";
  static final String CREATED_SEQ = "cseq";

  /** The title, the tags and the content as one weighted field (see {@link RecordDocument}). */
  static final String TEXT = "text";

  /**
   * The title and the tags alone, weighted as in {@link #TEXT}, for records whose content is
   * withheld.
   */
  static final String HEADING = "heading";

  static final String VECTOR = "vector";
  static final String HAS_VECTOR = "has_vector";
  static final String VECTOR_GENERATION = "vgen";
  static final String LEVEL = "level";

  /** Keyword values longer than this are indexed by their hash: Lucene refuses huge terms. */
  private static final int MAX_KEYWORD_BYTES = 4096;

  private IndexFields() {}

  /** A keyword as indexed: itself, or its hash when it is too long to be one term. */
  static String keyword(String value) {
    if (value.length() * 3 <= MAX_KEYWORD_BYTES
        || value.getBytes(StandardCharsets.UTF_8).length <= MAX_KEYWORD_BYTES) {
      return value;
    }
    try {
      return "sha256:"
          + HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256")
                      .digest(value.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always present", e);
    }
  }

  /**
   * The highest value of the long point {@code field} in {@code reader}, 0 when none: each segment
   * keeps its points' bounds, so this costs nothing like a search.
   */
  static long maxPoint(IndexReader reader, String field) throws IOException {
    long max = 0;
    for (LeafReaderContext leaf : reader.leaves()) {
      PointValues points = leaf.reader().getPointValues(field);
      if (points != null && points.size() > 0) {
        max = Math.max(max, LongPoint.decodeDimension(points.getMaxPackedValue(), 0));
      }
    }
    return max;
  }

  /** The row key of the document {@code doc} of the reader whose leaves these are. */
  static long rowKey(List<LeafReaderContext> leaves, int doc) throws IOException {
    LeafReaderContext leaf = leaves.get(ReaderUtil.subIndex(doc, leaves));
    NumericDocValues rows = leaf.reader().getNumericDocValues(ROW);
    if (rows == null || !rows.advanceExact(doc - leaf.docBase)) {
      throw new IllegalStateException("a document without a row key");
    }
    return rows.longValue();
  }
}
