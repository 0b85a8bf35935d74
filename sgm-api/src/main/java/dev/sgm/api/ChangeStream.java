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
   * change log no longer holds where it was, and with {@code unavailable} once the watch has ended
   * ({@link #close}).
   */
  Batch poll(Duration timeout) throws InterruptedException;

  /**
   * Asks for {@code listener} to be run whenever {@link #pollReady} may have something new (and
   * once now), so that a consumer can wait without a thread of its own. The listener runs on the
   * thread that hands out every watch's commits: it must return at once, never block. False when
   * this stream gives no such signal; its consumer then waits in {@link #poll}.
   */
  default boolean onReady(Runnable listener) {
    return false;
  }

  /**
   * The events ready now, without waiting and without reading the change log: an empty batch when
   * there are none. Null when the stream has to read the change log first (it fell behind its
   * buffer, or resumes from an older cursor): {@link #poll} does that, from a thread that may
   * block.
   */
  default Batch pollReady() {
    return null;
  }

  /** The cursor after the last event handed out: where a new watch resumes without a gap. */
  String cursor();

  /**
   * Stops watching; a {@link #poll} waiting returns empty, and a later one fails with {@code
   * unavailable}, as it does once the server closed the watch on shutting down (so a consumer that
   * polls in a loop ends instead of spinning).
   */
  @Override
  void close();
}
