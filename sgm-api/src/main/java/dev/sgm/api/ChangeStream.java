package dev.sgm.api;

import java.time.Duration;
import java.util.List;

/**
 * A live watch of the change feed ({@link SgmService#watch}): the events of the watched scopes as
 * they commit, in commit order, each exactly once. A consumer pulls them with {@link #poll}; one
 * that falls behind its bounded buffer is caught up from the change log (the batch says so), so a
 * slow reader never slows writers and never loses an event. Close it to free what it holds.
 */
public interface ChangeStream extends AutoCloseable {
  /** What one {@link #poll} returns. */
  record Batch(List<ChangeEvent> events, boolean fellBehind) {
    public Batch {
      events = List.copyOf(events);
    }
  }

  /**
   * The next events, waiting up to {@code timeout} for one; an empty batch when none came (time for
   * a heartbeat). Fails with {@code cursor_expired} when the consumer fell so far behind that the
   * change log no longer holds where it was.
   */
  Batch poll(Duration timeout) throws InterruptedException;

  /** The cursor after the last event handed out: where a new watch resumes without a gap. */
  String cursor();

  /** Stops watching; a {@link #poll} waiting returns empty. */
  @Override
  void close();
}
