package dev.sgm.search;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.CollectionStatistics;
import org.apache.lucene.search.TermStatistics;

/**
 * The BM25 statistics a text query was ranked with (document frequencies, field lengths). A record
 * stored while someone pages through results changes them, and with them every score; later pages
 * reuse the first page's, so the order does not shift under the reader.
 */
public final class Statistics {
  private static final int FORMAT = 1;

  private final Map<String, long[]> collections = new LinkedHashMap<>();
  private final Map<Term, long[]> terms = new LinkedHashMap<>();

  Statistics() {}

  synchronized void record(CollectionStatistics s) {
    collections.put(
        s.field(), new long[] {s.maxDoc(), s.docCount(), s.sumTotalTermFreq(), s.sumDocFreq()});
  }

  synchronized void record(Term term, TermStatistics s) {
    terms.put(term, new long[] {s.docFreq(), s.totalTermFreq()});
  }

  synchronized CollectionStatistics collection(String field) {
    long[] v = collections.get(field);
    return v == null ? null : new CollectionStatistics(field, v[0], v[1], v[2], v[3]);
  }

  synchronized TermStatistics term(Term term) {
    long[] v = terms.get(term);
    return v == null ? null : new TermStatistics(term.bytes(), v[0], v[1]);
  }

  /** A compact text form, for a paging cursor. */
  public synchronized String encode() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(FORMAT);
      out.writeShort(collections.size());
      for (Map.Entry<String, long[]> e : collections.entrySet()) {
        out.writeUTF(e.getKey());
        for (long v : e.getValue()) {
          out.writeLong(v);
        }
      }
      out.writeShort(terms.size());
      for (Map.Entry<Term, long[]> e : terms.entrySet()) {
        out.writeUTF(e.getKey().field());
        out.writeUTF(e.getKey().text());
        out.writeLong(e.getValue()[0]);
        out.writeLong(e.getValue()[1]);
      }
    } catch (IOException e) {
      throw new IllegalStateException("writing to memory failed", e);
    }
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.toByteArray());
  }

  /**
   * Reads {@link #encode()}'s form.
   *
   * @throws IllegalArgumentException when the text is not one
   */
  public static Statistics decode(String text) {
    Objects.requireNonNull(text, "text");
    Statistics statistics = new Statistics();
    try (DataInputStream in =
        new DataInputStream(new ByteArrayInputStream(Base64.getUrlDecoder().decode(text)))) {
      if (in.readByte() != FORMAT) {
        throw new IllegalArgumentException("unknown statistics format");
      }
      int fields = in.readUnsignedShort();
      for (int i = 0; i < fields; i++) {
        String field = in.readUTF();
        long[] v = {in.readLong(), in.readLong(), in.readLong(), in.readLong()};
        if (v[1] > v[0] || v[3] < v[1] || v[2] < v[3] || v[1] < 1) {
          throw new IllegalArgumentException("inconsistent statistics");
        }
        statistics.collections.put(field, v);
      }
      int count = in.readUnsignedShort();
      for (int i = 0; i < count; i++) {
        Term term = new Term(in.readUTF(), in.readUTF());
        long[] v = {in.readLong(), in.readLong()};
        if (v[0] < 1 || v[1] < v[0]) {
          throw new IllegalArgumentException("inconsistent statistics");
        }
        statistics.terms.put(term, v);
      }
      if (in.available() > 0) {
        throw new IllegalArgumentException("trailing bytes");
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("truncated statistics", e);
    }
    return statistics;
  }
}
