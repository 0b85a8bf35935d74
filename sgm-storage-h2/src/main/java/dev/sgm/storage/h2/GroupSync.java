package dev.sgm.storage.h2;

import java.sql.SQLException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Forces committed transactions to the disk before they are acknowledged, one sync for every commit
 * waiting (group commit): a committer that finds no sync running starts one, which covers every
 * commit finished before it started; committers arriving meanwhile wait for the next one, which one
 * of them starts.
 */
final class GroupSync {
  /** Forces what the store has written to the disk. */
  @FunctionalInterface
  interface Force {
    void force() throws SQLException;
  }

  private final Force force;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition finished = lock.newCondition();

  /** Commits that asked for a sync so far; each asks after its commit has returned. */
  private long requested;

  /** Requests that completed syncs cover. */
  private long covered;

  private boolean syncing;
  private long syncs;

  GroupSync(Force force) {
    this.force = force;
  }

  /**
   * Returns once every transaction committed before this call is on the disk.
   *
   * @throws SQLException when the sync this call depends on failed
   */
  void awaitDurable() throws SQLException {
    lock.lock();
    try {
      long mine = ++requested;
      while (covered < mine) {
        if (syncing) {
          finished.awaitUninterruptibly();
          continue;
        }
        syncing = true;
        // Every request up to here was made after its commit returned, so a sync that starts now
        // covers them all.
        long covers = requested;
        boolean done = false;
        lock.unlock();
        try {
          force.force();
          done = true;
        } finally {
          lock.lock();
          syncing = false;
          if (done) {
            covered = Math.max(covered, covers);
            syncs++;
          }
          finished.signalAll();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** How many syncs have completed: for tests and figures. */
  long syncs() {
    lock.lock();
    try {
      return syncs;
    } finally {
      lock.unlock();
    }
  }
}
