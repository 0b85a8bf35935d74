package dev.sgm.core;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoredRecord;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.LongFunction;

/**
 * Read-your-writes for searches of the index: a search sees every write committed before it began,
 * the caller's own included, although the index follows storage behind the writers. The follower
 * says through which sequence number searches see every change ({@link #published}); a search takes
 * a mark and waits until the index shows it ({@link #search}). Writers never wait.
 *
 * <p>Both sides of that are here, so that what a search may rely on is decided in one place.
 */
final class ReadYourWrites {
  private static final long WAIT_MILLIS = 30_000;

  /** What the protocol needs of the index's follower. */
  interface Follower {
    /** Whether the index answers searches: not starting, rebuilding or failed. */
    boolean ready();

    /** Why the index stopped answering for good, or null while it has not. */
    String failure();

    /** Why a search that waited its fill is not answered: a rebuild's progress, or a lag. */
    String behind();

    /** A search begins: the follower's background work yields the processor to it. */
    void searchBegins();

    /** A search waits: the follower is to publish what it holds at once. */
    void hurry();
  }

  /**
   * What a search through {@code mark} found, and the live rows of storage it named (read after the
   * search: some may be gone).
   */
  record Answer<R>(long mark, R found, List<StoredRecord> live) {}

  private final Storage storage;
  private final Follower follower;
  private final Object monitor = new Object();

  /** The sequence number through which the index has applied and published every change. */
  private volatile long visible = -1;

  /** How many commits this process has made (each is counted once it has committed). */
  private final AtomicLong commitsMade = new AtomicLong();

  /**
   * {@link #commitsMade} as it was when the last step whose changes are all published began: while
   * the two are equal, the index shows every commit this process has made.
   */
  private volatile long commitsShown;

  /** Searches waiting for the follower to publish. */
  private int waitingReaders;

  ReadYourWrites(Storage storage, Follower follower) {
    this.storage = storage;
    this.follower = follower;
  }

  // ---- the follower's side

  /** Counts a commit of this process, once it has committed. */
  void committed() {
    commitsMade.incrementAndGet();
  }

  /**
   * The commits counted so far; read before the follower reads the log, every commit counted by
   * then is among the changes it reads or applied already.
   */
  long commitsMade() {
    return commitsMade.get();
  }

  /**
   * Searches now see every commit counted when the follower's step began ({@code made}, as {@link
   * #commitsMade} said then).
   */
  void shown(long made) {
    commitsShown = made;
  }

  /** Searches see every change through {@code through} now. */
  void published(long through) {
    synchronized (monitor) {
      visible = Math.max(visible, through);
      monitor.notifyAll();
    }
  }

  /** The sequence number through which searches see every change, or -1 before the first. */
  long publishedThrough() {
    return visible;
  }

  /** Whether a search waits for the follower to publish. */
  boolean searchesWaiting() {
    synchronized (monitor) {
      return waitingReaders > 0;
    }
  }

  /** The follower failed: wakes the searches waiting for it, which fail at once. */
  void failed() {
    synchronized (monitor) {
      monitor.notifyAll();
    }
  }

  // ---- the searches' side

  /**
   * The sequence number through which searches started now see every change, or -1 while the index
   * cannot answer (starting, rebuilding, failed) or does not show yet a commit this process has
   * made (a search through it would only have to be done again).
   */
  long visible() {
    long shown = commitsShown;
    long through = visible;
    return follower.ready() && commitsMade.get() == shown ? through : -1;
  }

  /**
   * Where a search starts: the sequence number it searches through, and whether storage is still to
   * confirm, with the page's rows, that no write committed before the search is missing.
   */
  record Mark(long seq, boolean checkAfter) {}

  /** The mark of a first page, taken as the search begins. */
  Mark firstPage() {
    // On a storage that answers the committed sequence only in a round trip, a first page searches
    // what the index shows now, then reads that sequence with the page's rows (see search).
    // Otherwise it waits first for the index to show every write committed before it.
    boolean checkAfter = storage.committedSequenceCostsARoundTrip();
    long mark = checkAfter ? visible() : storage.committedSequence();
    if (checkAfter && mark < 0) {
      checkAfter = false;
      mark = storage.committedSequence();
    }
    return new Mark(mark, checkAfter);
  }

  /** The mark of a later page: the first page's, so that pages do not shift as writes come in. */
  static Mark laterPage(long firstPageMark) {
    return new Mark(firstPageMark, false);
  }

  /**
   * Runs {@code search} through the mark once the index shows everything up to it, and reads the
   * rows it found (by {@code rowKeys}) from storage; searches again, through a later mark, when
   * storage shows that the index missed a write committed before the search.
   */
  <R> Answer<R> search(Mark start, LongFunction<R> search, Function<R, List<Long>> rowKeys) {
    long mark = start.seq();
    boolean checkAfter = start.checkAfter();
    while (true) {
      awaitVisible(mark);
      R found = search.apply(mark);
      List<Long> keys = rowKeys.apply(found);
      if (!checkAfter) {
        return new Answer<>(mark, found, storage.live(keys));
      }
      Storage.LiveRows checked = storage.liveAndCommitted(keys);
      if (checked.committedSequence() <= mark) {
        // The index showed every write committed before the query.
        return new Answer<>(mark, found, checked.rows());
      }
      // Something committed that the index did not show, perhaps before this query began: wait
      // for the index to show it, and search again.
      mark = checked.committedSequence();
      checkAfter = false;
    }
  }

  /**
   * Waits until the index has applied every change through {@code seq}; fails with {@code
   * unavailable} while the index cannot answer.
   */
  private void awaitVisible(long seq) {
    long started = System.nanoTime();
    follower.searchBegins();
    if (visible >= seq && follower.ready()) {
      return;
    }
    long deadline = started + WAIT_MILLIS * 1_000_000;
    synchronized (monitor) {
      waitingReaders++;
      try {
        // After the count: the follower's next step sees this search waiting, and publishes.
        follower.hurry();
        awaitPublished(seq, deadline);
      } finally {
        waitingReaders--;
      }
    }
  }

  private void awaitPublished(long seq, long deadline) {
    synchronized (monitor) {
      while (visible < seq || !follower.ready()) {
        String failure = follower.failure();
        if (failure != null) {
          throw new SgmException(ErrorCode.UNAVAILABLE, "text search is unavailable: " + failure);
        }
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          throw new SgmException(ErrorCode.UNAVAILABLE, follower.behind());
        }
        try {
          monitor.wait(Math.min(left, 100));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while waiting for the index");
        }
      }
    }
  }
}
