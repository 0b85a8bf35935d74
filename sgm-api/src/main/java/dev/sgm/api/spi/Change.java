package dev.sgm.api.spi;

import dev.sgm.api.Scope;
import java.util.Locale;

/**
 * One committed write, at its place in the storage's commit-ordered sequence, with the row as it is
 * now (which may be newer than the write).
 *
 * @param current the row now, or null when there is none any more
 */
public record Change(long seq, Kind kind, Scope scope, String id, StoredRecord current) {
  /** What a write did. */
  public enum Kind {
    STORED,
    DELETED;

    /** The wire name, e.g. {@code stored}. */
    public String wireName() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
