package dev.sgm.core;

import dev.sgm.api.spi.Embedder;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Embeds what records say on a thread of its own, so that embedding never sits on the write path:
 * the follower queues the text of each record it indexes, this thread embeds it, and the follower
 * takes the finished embeddings back into the index. While callers are active it yields the
 * processor to them.
 */
final class EmbeddingQueue implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(EmbeddingQueue.class.getName());

  private static final int EMBED_BATCH = 64;

  /**
   * The most finished embeddings one step puts into the index, and the most that wait for it: the
   * embedding thread pauses beyond that. A fast model would otherwise run far ahead of the index's
   * graph, and the follower would take ever larger lots, each a longer step and more memory.
   */
  static final int APPLY_BATCH = 1024;

  /**
   * While writes or searches are coming in, embedding runs at most this share of the time, in small
   * batches: a model uses the processors heavily, and the callers come first. Idle, it runs flat
   * out in large batches.
   */
  private static final double SHARE_WHILE_BUSY = 0.2;

  /**
   * One text at a time while busy, so that a passage takes one processor and leaves the other to
   * the callers (store with the embedder 0.91x of without, against 0.78-0.81x in batches of 8).
   */
  private static final int EMBED_BATCH_WHILE_BUSY = 1;

  /** How long after the last write or search the embedding thread still counts them as coming. */
  private static final long BUSY_NANOS = 500_000_000L;

  /**
   * How long the model's load (most of a core for a second or so) waits, unless a record comes to
   * be embedded sooner, so that it does not slow a server's start on a small machine. A search by
   * meaning meanwhile loads it itself.
   */
  private static final long LOAD_AFTER_NANOS = 2_000_000_000L;

  /** A record's embedding, with the text it was made of and the ticket its text was queued with. */
  record Embedded(long rowKey, String text, float[] vector, long ticket) {}

  /** A text waiting to be embedded, with its ticket: texts are embedded in the order of these. */
  private record Queued(String text, long ticket) {}

  private final Embedder embedder;
  private final Runnable onReady;
  private final Object monitor = new Object();

  /** Records waiting for an embedding: row key to the text to embed, oldest ticket first. */
  private final LinkedHashMap<Long, Queued> toEmbed = new LinkedHashMap<>();

  /** Tickets handed out so far: one a queued text, in the order they were queued. */
  private long issued;

  /** The oldest ticket of the texts being embedded now, or none ({@link Long#MAX_VALUE}). */
  private long embeddingFirst = Long.MAX_VALUE;

  /** The oldest ticket of the embeddings taken by the follower, or none. */
  private long applyingFirst = Long.MAX_VALUE;

  /** Searches waiting for embeddings ({@link #awaitThrough}): embedding does not yield to them. */
  private int searchesWaiting;

  /** Embeddings made and not yet taken by the follower. */
  private final List<Embedded> embedded = new ArrayList<>();

  private int embeddingNow;

  /** Embeddings taken by the follower (being put into the index), not yet searchable. */
  private int applyingNow;

  /**
   * When this process last committed a write or began a search, for yielding the processor to them.
   */
  private volatile long lastForeground;

  private volatile boolean closed;
  private Thread thread;

  /**
   * @param embedder the model
   * @param onReady called, on the embedding thread, when embeddings are ready to be taken
   */
  EmbeddingQueue(Embedder embedder, Runnable onReady) {
    this.embedder = embedder;
    this.onReady = onReady;
  }

  /** Starts the embedding thread. */
  void start() {
    thread = Thread.ofPlatform().daemon().name("sgm-embedding").start(this::embedLoop);
  }

  /** A write committed or a search began: embedding yields to the callers for a while. */
  void callerActive() {
    lastForeground = System.nanoTime();
  }

  /** Queues {@code text} to embed for the record {@code rowKey}, in place of any queued before. */
  void enqueue(long rowKey, String text) {
    synchronized (monitor) {
      toEmbed.remove(rowKey);
      toEmbed.put(rowKey, new Queued(text, ++issued));
      monitor.notifyAll();
    }
  }

  /** The ticket of the text queued last: waiting {@link #awaitThrough} it waits for all before. */
  long issued() {
    synchronized (monitor) {
      return issued;
    }
  }

  /**
   * Waits until every text queued up to {@code ticket} is embedded and searchable (or dropped), at
   * most until {@code deadlineNanos}; meanwhile embedding runs flat out, since the search waiting
   * is not a caller to yield to.
   *
   * @return whether they are
   */
  boolean awaitThrough(long ticket, long deadlineNanos) throws InterruptedException {
    synchronized (monitor) {
      searchesWaiting++;
      try {
        while (oldestPending() <= ticket && !closed) {
          long left = deadlineNanos - System.nanoTime();
          if (left <= 0) {
            return false;
          }
          monitor.wait(Math.max(1, left / 1_000_000));
        }
        return oldestPending() > ticket;
      } finally {
        searchesWaiting--;
      }
    }
  }

  /** The ticket of the oldest text not searchable yet, or {@link Long#MAX_VALUE}; under monitor. */
  private long oldestPending() {
    long oldest = Math.min(applyingNow > 0 ? applyingFirst : Long.MAX_VALUE, embeddingFirst);
    if (!embedded.isEmpty()) {
      oldest = Math.min(oldest, embedded.get(0).ticket());
    }
    if (!toEmbed.isEmpty()) {
      oldest = Math.min(oldest, toEmbed.values().iterator().next().ticket());
    }
    return oldest;
  }

  /** Drops every queued text and finished embedding: the index is rebuilt from scratch. */
  void clear() {
    synchronized (monitor) {
      toEmbed.clear();
      embedded.clear();
      monitor.notifyAll();
    }
  }

  /** Whether finished embeddings wait to be taken. */
  boolean hasReady() {
    synchronized (monitor) {
      return !embedded.isEmpty();
    }
  }

  /**
   * Takes up to {@link #APPLY_BATCH} finished embeddings, oldest first, which count as pending
   * until {@link #applied} (or are {@linkplain #giveBack given back}); empty when there are none.
   */
  List<Embedded> takeReady() {
    synchronized (monitor) {
      if (embedded.isEmpty()) {
        return List.of();
      }
      List<Embedded> first = embedded.subList(0, Math.min(APPLY_BATCH, embedded.size()));
      List<Embedded> ready = new ArrayList<>(first);
      first.clear();
      applyingNow += ready.size();
      for (Embedded e : ready) {
        applyingFirst = Math.min(applyingFirst, e.ticket());
      }
      monitor.notifyAll(); // the embedding thread may wait for room
      return ready;
    }
  }

  /** Puts embeddings taken by {@link #takeReady} back in front, to be taken again. */
  void giveBack(List<Embedded> ready) {
    synchronized (monitor) {
      embedded.addAll(0, ready);
      applyingNow -= ready.size();
      if (applyingNow == 0) {
        applyingFirst = Long.MAX_VALUE;
      }
    }
  }

  /** Every embedding taken so far is searchable now, or was dropped: none of them is pending. */
  void applied() {
    synchronized (monitor) {
      applyingNow = 0;
      applyingFirst = Long.MAX_VALUE;
      monitor.notifyAll();
    }
  }

  private boolean searchWaits() {
    synchronized (monitor) {
      return searchesWaiting > 0;
    }
  }

  /** Records queued, being embedded, or embedded and not yet searchable. */
  int pending() {
    synchronized (monitor) {
      return toEmbed.size() + embeddingNow + embedded.size() + applyingNow;
    }
  }

  private void embedLoop() {
    try {
      awaitStartOrWork();
      if (closed) {
        return;
      }
      // Loads the model now, off the path of the first query.
      embedder.load();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "the embedding model cannot be loaded", e);
      return;
    }
    while (!closed) {
      boolean busy = System.nanoTime() - lastForeground < BUSY_NANOS && !searchWaits();
      Map<Long, Queued> batch;
      try {
        batch = nextBatch(busy ? EMBED_BATCH_WHILE_BUSY : EMBED_BATCH);
      } catch (InterruptedException e) {
        return;
      }
      if (batch.isEmpty()) {
        continue;
      }
      long started = System.nanoTime();
      List<Embedded> done = embed(batch);
      synchronized (monitor) {
        embedded.addAll(done);
        embeddingNow = 0;
        embeddingFirst = Long.MAX_VALUE;
        monitor.notifyAll();
      }
      onReady.run();
      long now = System.nanoTime();
      long rest = restMillis(busy, now - lastForeground < BUSY_NANOS, now - started);
      if (rest > 0) {
        sleep(rest);
      }
    }
  }

  /**
   * Waits for texts to embed and for room for their embeddings, and takes up to {@code size} of
   * them; empty when closed meanwhile.
   */
  private Map<Long, Queued> nextBatch(int size) throws InterruptedException {
    Map<Long, Queued> batch = new LinkedHashMap<>();
    synchronized (monitor) {
      while ((toEmbed.isEmpty() || embedded.size() >= APPLY_BATCH) && !closed) {
        monitor.wait(1000);
      }
      Iterator<Map.Entry<Long, Queued>> it = toEmbed.entrySet().iterator();
      while (it.hasNext() && batch.size() < size) {
        Map.Entry<Long, Queued> next = it.next();
        batch.put(next.getKey(), next.getValue());
        embeddingFirst = Math.min(embeddingFirst, next.getValue().ticket());
        it.remove();
      }
      embeddingNow = batch.size();
    }
    return batch;
  }

  /** The embeddings of {@code batch}; none when the model fails, which is logged. */
  private List<Embedded> embed(Map<Long, Queued> batch) {
    List<Embedded> done = new ArrayList<>(batch.size());
    try {
      List<float[]> vectors =
          embedder.embedPassages(batch.values().stream().map(Queued::text).toList());
      int i = 0;
      for (Map.Entry<Long, Queued> e : batch.entrySet()) {
        done.add(
            new Embedded(e.getKey(), e.getValue().text(), vectors.get(i++), e.getValue().ticket()));
      }
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "embedding failed; these records stay lexical only", e);
    }
    return done;
  }

  /**
   * How long the embedding thread rests after a batch that took {@code spentNanos}: while callers
   * keep coming, a small batch taken for them is followed by a rest that holds embedding to {@link
   * #SHARE_WHILE_BUSY} of the time. A large batch taken while idle is not: resting four times its
   * length because one search came meanwhile held a backlog to a fraction of its pace under a
   * caller that searches once a second; the next batch is small and rests instead.
   */
  static long restMillis(boolean takenWhileBusy, boolean busyNow, long spentNanos) {
    if (!takenWhileBusy || !busyNow) {
      return 0;
    }
    return (long) (spentNanos * (1 - SHARE_WHILE_BUSY) / SHARE_WHILE_BUSY / 1_000_000);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Waits until a record comes to be embedded, or {@link #LOAD_AFTER_NANOS} has passed. */
  private void awaitStartOrWork() {
    long until = System.nanoTime() + LOAD_AFTER_NANOS;
    synchronized (monitor) {
      while (!closed && toEmbed.isEmpty()) {
        long left = until - System.nanoTime();
        if (left <= 0) {
          return;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(monitor, left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  /** Stops the embedding thread after the batch in hand, waiting for it a while. */
  @Override
  public void close() {
    closed = true;
    synchronized (monitor) {
      monitor.notifyAll();
    }
    if (thread == null) {
      return;
    }
    try {
      thread.join(10_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
