package dev.sgm.api.spi;

import java.util.Objects;

/**
 * What a write records beside the row, under the write's sequence number: an entry of the change
 * feed, and, while history is kept, an entry of the version log.
 *
 * @param kind what happened, for the change feed
 * @param writer who wrote it: the authenticated principal; else the agent the operation acts for
 *     ({@link RecordWriter#as}); else the record's agent
 * @param keepVersion whether the version log keeps this write (history is on)
 */
public record WriteLog(Change.Kind kind, String writer, boolean keepVersion) {
  public WriteLog {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(writer, "writer");
  }
}
