package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.spi.Storage;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

/**
 * How commits wake the search follower: each is seen, but a stream of them does not cost a read of
 * the log apiece (on a node sharing a database, each read is a round trip to it).
 */
class SearchFollowerWakeTest {
  private static final long MILLIS = 1_000_000L;

  /**
   * The embedded store, its reads of the log counted and its commit listeners kept for the test.
   */
  private static final class Watched implements AutoCloseable {
    final AtomicInteger reads = new AtomicInteger();
    final List<Runnable> listeners = new CopyOnWriteArrayList<>();
    final Storage real = CoreModule.storage(TestRuntimes.memory(), CoreModule.storageProviders());
    final Storage storage =
        (Storage)
            Proxy.newProxyInstance(
                Storage.class.getClassLoader(),
                new Class<?>[] {Storage.class},
                (proxy, method, args) -> {
                  switch (method.getName()) {
                    case "changesAfter" -> reads.incrementAndGet();
                    case "onCommit" -> listeners.add((Runnable) args[0]);
                    default -> {}
                  }
                  try {
                    return method.invoke(real, args);
                  } catch (InvocationTargetException e) {
                    throw e.getCause();
                  }
                });

    private SearchFollower follower;

    /** Starts a follower of this store, in memory, and waits until it answers. */
    SearchFollower follow() {
      follower = new SearchFollower(storage, null, null, "", false);
      follower.start();
      long deadline = System.nanoTime() + 10_000 * MILLIS;
      while (follower.readYourWrites().visible() < 0 && System.nanoTime() < deadline) {
        LockSupport.parkNanos(MILLIS);
      }
      assertTrue(follower.readYourWrites().visible() >= 0, "the follower did not become ready");
      return follower;
    }

    void commit() {
      listeners.forEach(Runnable::run);
    }

    @Override
    public void close() {
      if (follower != null) {
        follower.close();
      }
      real.close();
    }
  }

  @Test
  void aStreamOfCommitsIsReadInStepsThatGatherSeveral() {
    try (Watched w = new Watched()) {
      w.follow();
      int before = w.reads.get();
      long started = System.nanoTime();
      for (int i = 0; i < 200; i++) {
        w.commit();
        LockSupport.parkNanos(MILLIS / 2);
      }
      long elapsedMillis = (System.nanoTime() - started) / MILLIS;
      int reads = w.reads.get() - before;
      // One read per gathering window, plus the timed polls, plus the one in progress at each end.
      long bound = elapsedMillis / 10 + elapsedMillis / 200 + 3;
      assertTrue(
          reads <= bound,
          reads
              + " reads of the log for 200 commits in "
              + elapsedMillis
              + " ms; at most "
              + bound);
    }
  }

  @Test
  void aCommitAloneWakesTheFollowerSoonerThanItsPoll() {
    try (Watched w = new Watched()) {
      w.follow();
      // With no query asking, the follower also reads on a timer (every 200 ms): were commits
      // not waking it, the median wait would be about 100 ms.
      long[] waits = new long[7];
      for (int i = 0; i < waits.length; i++) {
        LockSupport.parkNanos(250 * MILLIS);
        int before = w.reads.get();
        long committed = System.nanoTime();
        w.commit();
        long deadline = committed + 5_000 * MILLIS;
        while (w.reads.get() == before && System.nanoTime() < deadline) {
          LockSupport.parkNanos(MILLIS / 4);
        }
        waits[i] = (System.nanoTime() - committed) / MILLIS;
      }
      long[] sorted = waits.clone();
      Arrays.sort(sorted);
      assertTrue(
          sorted[waits.length / 2] < 60,
          "ms from a commit to the follower's next read: " + Arrays.toString(waits));
    }
  }
}
