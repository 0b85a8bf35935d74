package dev.sgm.storage.sql;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.StorageTransaction;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Gathers concurrent short units of work into groups that one caller runs for all (group commit).
 * At most {@code leaders} groups run at once. A caller that finds a place free leads a group of
 * every unit waiting (up to {@code maxGroup}, its own or not); the others wait for their unit's
 * outcome, or for the word to run it alone. A caller with nobody else waiting leads a group of one:
 * with one caller nothing waits.
 */
final class CommitGroups {
  private final Semaphore leaders;
  private final int maxGroup;
  private final ConcurrentLinkedQueue<Unit> waiting = new ConcurrentLinkedQueue<>();

  /** Whether this thread is leading a group: a unit that asks for another one runs it alone. */
  private final ThreadLocal<Boolean> leading = ThreadLocal.withInitial(() -> false);

  CommitGroups(int leaders, int maxGroup) {
    this.leaders = new Semaphore(leaders);
    this.maxGroup = maxGroup;
  }

  /**
   * Runs {@code work} in a group, or through {@code alone} when the group says so (or when called
   * from inside a group).
   *
   * @param runner runs a group when this caller leads one, and settles every unit of it ({@link
   *     Unit#succeed}, {@link Unit#fail} or {@link Unit#runAlone})
   */
  @SuppressWarnings("unchecked")
  <T> T run(
      Function<StorageTransaction, T> work,
      Function<Function<StorageTransaction, T>, T> alone,
      Consumer<List<Unit>> runner) {
    if (leading.get()) {
      return alone.apply(work);
    }
    Unit unit = new Unit(work);
    waiting.add(unit);
    while (true) {
      int state = unit.state;
      if (state == Unit.DONE) {
        if (unit.failure instanceof RuntimeException e) {
          throw e;
        }
        if (unit.failure instanceof Error e) {
          throw e;
        }
        return (T) unit.result;
      }
      if (state == Unit.ALONE) {
        return alone.apply(work);
      }
      if (state == Unit.WAITING && leaders.tryAcquire()) {
        lead(runner);
      } else if (Thread.currentThread().isInterrupted() && waiting.remove(unit)) {
        // Not taken by any group yet: it never ran, and the caller stops waiting. (A unit taken
        // is waited for: it may be committing.)
        throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while waiting to commit");
      } else {
        LockSupport.park(this);
      }
    }
  }

  private void lead(Consumer<List<Unit>> runner) {
    leading.set(true);
    try {
      List<Unit> group = new ArrayList<>();
      for (Unit next; group.size() < maxGroup && (next = waiting.poll()) != null; ) {
        next.state = Unit.TAKEN;
        group.add(next);
      }
      try {
        if (!group.isEmpty()) {
          runner.accept(group);
        }
      } catch (RuntimeException | Error e) {
        // Nobody may be left waiting for a unit the runner did not settle.
        for (Unit unit : group) {
          if (unit.state == Unit.TAKEN) {
            unit.fail(e);
          }
        }
      }
    } finally {
      leading.set(false);
      leaders.release();
      // Whoever waits first may lead the next group.
      Unit first = waiting.peek();
      if (first != null) {
        LockSupport.unpark(first.owner);
      }
    }
  }

  /** One caller's unit of work, and what became of it. */
  static final class Unit {
    static final int WAITING = 0;
    static final int TAKEN = 1;
    static final int ALONE = 2;
    static final int DONE = 3;

    final Function<StorageTransaction, ?> work;
    private final Thread owner = Thread.currentThread();
    private volatile int state = WAITING;
    private Object result;
    private Throwable failure;

    private Unit(Function<StorageTransaction, ?> work) {
      this.work = work;
    }

    /** It committed, with this result. */
    void succeed(Object value) {
      result = value;
      settle(DONE);
    }

    /** It failed, with this, as it would have alone. */
    void fail(Throwable e) {
      failure = e;
      settle(DONE);
    }

    /** The group could not commit: the caller runs the unit in a transaction of its own. */
    void runAlone() {
      settle(ALONE);
    }

    private void settle(int outcome) {
      // The fields written before this volatile write are seen by the owner after reading it.
      state = outcome;
      LockSupport.unpark(owner);
    }
  }
}
