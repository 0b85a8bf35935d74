package dev.sgm.embedding.bge;

import java.util.concurrent.CancellationException;
import java.util.function.BooleanSupplier;

/**
 * Keeps passages from starting while a query waits, across the models of one embedder, so that a
 * query has the processors to itself except for passages already running when it came.
 */
public final class QueryGate {
  /** The queries asked for and not yet answered. */
  private int waiting;

  /** A query was asked for. */
  synchronized void enter() {
    waiting++;
  }

  /** A query was answered (or cancelled). */
  synchronized void leave() {
    waiting--;
    notifyAll();
  }

  /** Waits until no query waits, or until {@code closed}. */
  synchronized void awaitNoQueries(BooleanSupplier closed) {
    while (waiting > 0 && !closed.getAsBoolean()) {
      try {
        wait(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CancellationException("interrupted while waiting for queries");
      }
    }
  }
}
