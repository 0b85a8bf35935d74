package dev.sgm.api.spi;

import dev.sgm.api.Scope;
import java.util.Locale;

/**
 * One committed write, at its place in the storage's commit-ordered sequence, with what the write
 * was (its type, version, writer and time, as logged) and the row as it is now (which may be newer
 * than the write).
 *
 * @param type the record's type as written, or null when the storage does not say
 * @param version the record's version as written, or 0 when the storage does not say
 * @param writer who wrote it (the principal, else the record's agent), or null when not said
 * @param atMicros when it was written, in microseconds since the epoch, or 0 when not said
 * @param current the row now, or null when there is none any more
 */
public record Change(
    long seq,
    Kind kind,
    Scope scope,
    String id,
    String type,
    long version,
    String writer,
    long atMicros,
    StoredRecord current) {

  /** A change that says only what it touched, not what the write was. */
  public Change(long seq, Kind kind, Scope scope, String id, StoredRecord current) {
    this(seq, kind, scope, id, null, 0, null, 0, current);
  }

  /** What a write did. */
  public enum Kind {
    STORED,
    DELETED,
    /** A prior version or a deleted record came back (history restore, undelete, snapshots). */
    RESTORED,
    /** A claim's lease lapsed and the server gave the task back. */
    EXPIRED;

    /** The wire name, e.g. {@code stored}. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }

    /** The kind of this wire name. */
    public static Kind fromWireName(String name) {
      return valueOf(name.toUpperCase(Locale.ROOT));
    }
  }
}
