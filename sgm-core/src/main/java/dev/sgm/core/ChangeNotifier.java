package dev.sgm.core;

import dev.sgm.api.Caller;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.ChangesResult;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.Storage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * The one follower of the change log that every watch shares: a single thread reads each batch of
 * committed changes once (woken by {@link Storage#onCommit}, and on a timer for writes committed by
 * other nodes) and hands each change to the watches that cover it. A watch buffers a bounded number
 * of events; when its consumer falls further behind, it drops its buffer and reads from the change
 * log instead, from its own cursor, so writers are never slowed and nothing is lost.
 *
 * <p>A commit wakes the thread only while a watch is open: waking a thread costs a committer more
 * than a tenth of a single store here, and the listeners ({@link #onEvent}) are not waiting on a
 * caller, so with no watch they get the changes at the next timed read, within a second, in larger
 * batches.
 *
 * <p>Watches of one exact scope (the common case) are found by that scope, so a commit costs the
 * watches of other scopes nothing. A consumer that waits without a thread ({@link
 * ChangeStream#onReady}) is signalled once per batch read, after the batch is handed out and
 * outside the delivery lock, so that a consumer's work never holds up registrations.
 */
final class ChangeNotifier implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ChangeNotifier.class.getName());
  private static final int BATCH = 1000;

  /**
   * How often the log is read with no local commit to wake for: writes of other nodes, and this
   * node's while no watch is open, are seen within it.
   */
  private static final long IDLE_POLL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Storage storage;
  private final ChangeFeed feed;
  private final int buffer;

  /** The watches of exactly one scope, by that scope. */
  private final Map<Scope, List<Watch>> exact = new ConcurrentHashMap<>();

  /** The watches of wider scope modes, which every change is checked against. */
  private final List<Watch> wider = new CopyOnWriteArrayList<>();

  private final AtomicInteger open = new AtomicInteger();

  /** The watches to signal after the batch in hand; used by the notifier's thread only. */
  private final List<Watch> toSignal = new ArrayList<>();

  private final List<Consumer<ChangeEvent>> listeners = new CopyOnWriteArrayList<>();

  /** Wakes the thread for a commit while a watch is open, and for a new watch. */
  private final CommitSignal signal = new CommitSignal();

  /**
   * Held while a batch is handed out and while a watch registers: a watch registered at position P
   * receives every change above P, and reads what it needs up to P from the log.
   */
  private final Object delivery = new Object();

  private volatile boolean closed;
  private volatile long position;
  private volatile Thread thread;

  ChangeNotifier(Storage storage, ChangeFeed feed, int buffer) {
    this.storage = storage;
    this.feed = feed;
    this.buffer = buffer;
  }

  synchronized void start() {
    if (thread != null) {
      return;
    }
    position = storage.committedSequence();
    storage.onCommit(this::committed);
    thread = Thread.ofPlatform().daemon().name("sgm-change-notifier").start(this::follow);
    signal.wakes(thread);
  }

  /** How many watches are open, for tests and figures. */
  int watching() {
    return open.get();
  }

  /**
   * Calls {@code listener} with every change event of every scope, on the notifier's thread: at
   * once while a watch is open, else within {@link #IDLE_POLL_NANOS}.
   */
  void onEvent(Consumer<ChangeEvent> listener) {
    listeners.add(listener);
  }

  /** After a local commit: wakes the thread while a watch is open. */
  private void committed() {
    if (open.get() > 0) {
      signal.signal();
    }
  }

  private void follow() {
    while (!closed) {
      try {
        ChangeBatch batch = storage.changesAfter(position, BATCH);
        synchronized (delivery) {
          for (Change change : batch.changes()) {
            deliver(change);
          }
          position = Math.max(position, batch.through());
        }
        signalReady();
        // A commit after the read above has signalled already, so it is never slept through.
        if (batch.changes().size() < BATCH) {
          signal.await(IDLE_POLL_NANOS);
        }
      } catch (RuntimeException e) {
        if (closed) {
          return;
        }
        LOG.log(System.Logger.Level.WARNING, "following the change log failed; retrying", e);
        sleep();
      }
    }
  }

  private static void sleep() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void deliver(Change change) {
    ChangeEvent event = null;
    List<Watch> same = exact.get(change.scope());
    if (same != null) {
      event = offer(same, change, event);
    }
    event = offer(wider, change, event);
    if (!listeners.isEmpty()) {
      if (event == null) {
        event = feed.event(change);
      }
      for (Consumer<ChangeEvent> listener : listeners) {
        try {
          listener.accept(event);
        } catch (RuntimeException e) {
          LOG.log(System.Logger.Level.WARNING, "a change listener failed", e);
        }
      }
    }
  }

  /** Offers {@code change} to those of {@code candidates} that follow it; returns its event. */
  private ChangeEvent offer(List<Watch> candidates, Change change, ChangeEvent event) {
    for (Watch watch : candidates) {
      if (ChangeFeed.follows(watch.caller, watch.request, change)) {
        if (event == null) {
          event = feed.event(change);
        }
        if (watch.offer(change.seq(), event) && !watch.toBeSignalled) {
          watch.toBeSignalled = true;
          toSignal.add(watch);
        }
      }
    }
    return event;
  }

  /** Tells the consumers that wait without a thread that the batch just handed out is there. */
  private void signalReady() {
    for (Watch watch : toSignal) {
      watch.toBeSignalled = false;
      try {
        watch.listener.run();
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.WARNING, "a watch's consumer failed", e);
      }
    }
    toSignal.clear();
  }

  private void register(Watch watch) {
    if (watch.request.scopeMode() == ScopeMode.EXACT) {
      exact.compute(
          watch.request.scope(),
          (scope, list) -> {
            List<Watch> watches = list == null ? new CopyOnWriteArrayList<>() : list;
            watches.add(watch);
            return watches;
          });
    } else {
      wider.add(watch);
    }
    open.incrementAndGet();
  }

  private void unregister(Watch watch) {
    boolean removed;
    if (watch.request.scopeMode() == ScopeMode.EXACT) {
      boolean[] found = new boolean[1];
      exact.computeIfPresent(
          watch.request.scope(),
          (scope, list) -> {
            found[0] = list.remove(watch);
            return list.isEmpty() ? null : list;
          });
      removed = found[0];
    } else {
      removed = wider.remove(watch);
    }
    if (removed) {
      open.decrementAndGet();
    }
  }

  /** Opens a watch of {@code request} from its cursor, or from the present. */
  ChangeStream watch(Caller caller, ChangesRequest request) {
    long from;
    if (request.since() == null) {
      from = -1;
    } else {
      from = feed.decode(request.since(), "since");
      feed.checkRetained(from, "since");
    }
    long committed = storage.committedSequence();
    Watch watch = new Watch(caller, request, from < 0 ? committed : from);
    synchronized (delivery) {
      register(watch);
      // The thread may be behind the commits (no commit wakes it while no watch is open): what
      // it has not handed out yet, the watch reads from the log itself, not through its buffer.
      watch.catchUpTo = Math.max(position, committed);
    }
    // Every commit from here on wakes the thread; this wakes it for those made before.
    signal.signal();
    return watch;
  }

  @Override
  public void close() {
    closed = true;
    Thread t;
    synchronized (this) {
      t = thread;
    }
    if (t != null) {
      t.interrupt();
    }
    wider.forEach(Watch::close);
    exact.values().forEach(list -> list.forEach(Watch::close));
  }

  /** One event with its sequence number, as a watch buffers it. */
  private record Entry(long seq, ChangeEvent event) {}

  private final class Watch implements ChangeStream {
    private final Caller caller;
    private final ChangesRequest request;
    private final LinkedBlockingQueue<Entry> queue;

    /**
     * The sequence number of the last event handed out (or of where the watch started); written
     * only by the consumer's {@link #poll}, read by {@link #cursor} from any thread.
     */
    private volatile long delivered;

    /**
     * Up to here the watch reads the log; every change above it is (or was, before an overflow) in
     * its buffer.
     */
    private volatile long catchUpTo;

    private volatile boolean overflowed;
    private volatile boolean closed;

    /**
     * Run after the notifier handed this watch something, when its consumer waits without a thread.
     */
    private volatile Runnable listener;

    /** Whether the notifier's thread has this watch in its list to signal already. */
    private boolean toBeSignalled;

    Watch(Caller caller, ChangesRequest request, long start) {
      this.caller = caller;
      this.request = request;
      // Linked: an idle watch holds no array of its capacity.
      this.queue = new LinkedBlockingQueue<>(buffer);
      this.delivered = start;
    }

    /**
     * Called by the notifier's thread, with the delivery lock held; never blocks. True when the
     * consumer is to be signalled (it waits without a thread, and has something new).
     */
    boolean offer(long seq, ChangeEvent event) {
      if (overflowed || closed) {
        return false;
      }
      if (seq <= Math.max(delivered, catchUpTo)) {
        // The watch reads this one from the log itself (see watch()): it would only take room.
        return false;
      }
      if (!queue.offer(new Entry(seq, event))) {
        // The consumer is too far behind to keep in memory: it goes back to the log.
        overflowed = true;
        queue.clear();
      }
      return listener != null;
    }

    @Override
    public boolean onReady(Runnable listener) {
      this.listener = listener;
      if (overflowed || delivered < catchUpTo || !queue.isEmpty()) {
        listener.run();
      }
      return true;
    }

    @Override
    public synchronized Batch pollReady() {
      if (closed) {
        return new Batch(List.of(), false);
      }
      if (overflowed || delivered < catchUpTo) {
        return null;
      }
      List<Entry> entries = new ArrayList<>();
      queue.drainTo(entries, request.limit());
      return fresh(entries);
    }

    @Override
    public synchronized Batch poll(Duration timeout) throws InterruptedException {
      if (closed) {
        throw ended();
      }
      boolean fellBehind = false;
      if (overflowed) {
        synchronized (delivery) {
          queue.clear();
          overflowed = false;
          catchUpTo = position;
        }
        fellBehind = true;
      }
      while (delivered < catchUpTo) {
        ChangesResult page = feed.changes(caller, request.since(feed.encode(delivered)));
        delivered = Math.max(delivered, feed.decode(page.next(), "since"));
        if (!page.events().isEmpty() || fellBehind) {
          return new Batch(page.events(), fellBehind);
        }
      }
      Entry first = queue.poll(timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (first == null || closed) {
        return new Batch(List.of(), false);
      }
      List<Entry> entries = new ArrayList<>();
      entries.add(first);
      queue.drainTo(entries, request.limit() - 1);
      return fresh(entries);
    }

    /** The events of {@code entries} not handed out yet, which are handed out now. */
    private Batch fresh(List<Entry> entries) {
      List<ChangeEvent> events = new ArrayList<>(entries.size());
      for (Entry entry : entries) {
        // Seen already when it was also read from the log.
        if (entry.seq() > delivered) {
          events.add(entry.event());
          delivered = entry.seq();
        }
      }
      return new Batch(events, false);
    }

    @Override
    public String cursor() {
      return feed.encode(delivered);
    }

    /**
     * Why a poll after the end fails instead of returning empty: a consumer that polls in a loop
     * would otherwise spin on a watch the server closed as it shut down.
     */
    private static SgmException ended() {
      return new SgmException(
          ErrorCode.UNAVAILABLE,
          "the watch has ended: it was closed or its server is shutting down");
    }

    @Override
    public void close() {
      if (closed) {
        return;
      }
      closed = true;
      unregister(this);
      queue.clear();
      // Wakes a poll waiting on the buffer.
      queue.offer(new Entry(Long.MIN_VALUE, null));
    }
  }
}
