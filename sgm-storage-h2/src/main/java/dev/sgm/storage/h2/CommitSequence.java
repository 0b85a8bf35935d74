package dev.sgm.storage.h2;

import java.util.TreeSet;

/**
 * Numbers writes in commit order within one process. A transaction takes its numbers as it is about
 * to commit and settles them once it has committed (or failed); {@link #settled()} is the highest
 * number below which nothing is still in flight. A transaction that commits after another has read
 * its data always holds higher numbers, so everything at or below {@link #settled()} is a causally
 * consistent cut: snapshots are taken there, and followers read up to there.
 */
final class CommitSequence {
  /** A transaction's numbers: {@code first} to {@code first + count - 1}. */
  record Range(long first, int count) {}

  private final TreeSet<Long> inFlight = new TreeSet<>();
  private long last;

  CommitSequence(long last) {
    this.last = last;
  }

  /** The next {@code count} numbers, in flight until settled. */
  synchronized Range take(int count) {
    Range range = new Range(last + 1, count);
    last += count;
    inFlight.add(range.first());
    return range;
  }

  /** The numbers of {@code range} are settled: committed, or never to be used. */
  synchronized void settle(Range range) {
    inFlight.remove(range.first());
    notifyAll();
  }

  /** Every number at or below this one is settled. */
  synchronized long settled() {
    return inFlight.isEmpty() ? last : inFlight.first() - 1;
  }

  /**
   * Waits until every number taken so far is settled, and returns the settled mark: at or above
   * every write that committed before this call. Transactions in flight are past their work (they
   * only log and commit), so the wait is short.
   */
  synchronized long awaitSettled() throws InterruptedException {
    long target = last;
    while (settled() < target) {
      wait();
    }
    return settled();
  }
}
