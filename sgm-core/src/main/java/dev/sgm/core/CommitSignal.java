package dev.sgm.core;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How committers wake the one thread that follows the change log, and how that thread waits: for a
 * commit, for a hurry, or for its next poll (writes of other nodes signal nothing here).
 *
 * <p>A commit sets a flag, and wakes the thread only when the flag was clear: the thread clears it
 * before it reads the log, so under load a commit nearly always finds it set and costs one read of
 * it, not a monitor shared by every committer and a wake-up. A commit after that read sets it
 * again, so none is slept through.
 */
final class CommitSignal {
  private final AtomicBoolean signalled = new AtomicBoolean();

  /** Set when the thread is needed at once; cuts short its waiting for commits to gather. */
  private volatile boolean hurried;

  private volatile Thread follower;

  /** The thread that waits on this signal; until it is set, signals only set the flag. */
  void wakes(Thread follower) {
    this.follower = follower;
  }

  /** After a local commit, or whatever else the thread is to read the log for. */
  void signal() {
    if (!signalled.get() && !signalled.getAndSet(true)) {
      LockSupport.unpark(follower);
    }
  }

  /** Wakes the thread now, and out of any gathering of commits. */
  void hurry() {
    hurried = true;
    LockSupport.unpark(follower);
  }

  /** Whether {@link #hurry} was called since the thread last waited. */
  boolean hurried() {
    return hurried;
  }

  /**
   * Waits (on the following thread) for a commit signalled since the last wait, or for {@code
   * pollNanos}.
   */
  void await(long pollNanos) {
    await(pollNanos, 0, () -> false);
  }

  /**
   * Waits (on the following thread) until there is work: returns at once when {@code needed} says
   * so or a commit was signalled since the last wait, else parks until a signal or for {@code
   * pollNanos}. After a commit, lets more commits gather for {@code gatherNanos} unless hurried, so
   * that one read of the log takes several.
   */
  void await(long pollNanos, long gatherNanos, BooleanSupplier needed) {
    boolean committed = signalled.getAndSet(false);
    if (!committed && !needed.getAsBoolean()) {
      LockSupport.parkNanos(pollNanos);
      committed = signalled.get();
    }
    if (committed && gatherNanos > 0 && !needed.getAsBoolean()) {
      // Commits meanwhile find the flag set and need not wake the thread: the next read takes
      // them.
      signalled.set(true);
      long until = System.nanoTime() + gatherNanos;
      for (long left = gatherNanos; left > 0 && !hurried; ) {
        LockSupport.parkNanos(left);
        left = until - System.nanoTime();
      }
    }
    hurried = false;
    signalled.set(false);
  }
}
