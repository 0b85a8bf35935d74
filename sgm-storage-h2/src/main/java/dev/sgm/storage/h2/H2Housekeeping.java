package dev.sgm.storage.h2;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import java.util.function.LongSupplier;
import org.h2.engine.SessionLocal;
import org.h2.jdbc.JdbcConnection;
import org.h2.mvstore.FileStore;
import org.h2.mvstore.MVStore;
import org.h2.mvstore.RandomAccessStore;

/**
 * Keeps the store's file compact while it is open, as H2's own background writer would: every
 * commit of an embedded H2 store writes a new chunk, and a chunk that keeps a few live pages stays
 * in the file for good unless those pages are copied out. H2 runs that housekeeping only in its
 * background writer, which {@code WRITE_DELAY=0} (a commit written before it returns) turns off, so
 * without this a store of single-record writes grows by tens of kilobytes a commit, and every chunk
 * left makes the next process that opens the file slower (its metadata is read at open).
 *
 * <p>Every {@link #PERIOD_MS}: chunks that hold mostly dead pages are rewritten (a bounded amount
 * per pass, less while commits are coming in); while no commit came in since the last pass, chunks
 * are also moved towards the start of the file, so that the file shrinks. Chunks younger than H2's
 * retention time (45 s) are left alone, as H2 leaves them, so that a crash of the machine still
 * finds a consistent file.
 */
final class H2Housekeeping implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(H2Housekeeping.class.getName());

  private static final long PERIOD_MS = 1000;

  /** Chunks filled less than this (percent of live bytes) are rewritten. */
  private static final int TARGET_FILL_RATE = 80;

  /** A file filled less than this is shrunk by moving chunks, while no commits come in. */
  private static final int FILE_FILL_RATE = 90;

  private static final int BUSY_WRITE_BYTES = 1 << 20;
  private static final int IDLE_WRITE_BYTES = 16 << 20;

  private final MVStore store;
  private final LongSupplier commits;
  private final Lock writeTurn;
  private final Thread thread;
  private final Object wake = new Object();
  private volatile boolean closed;

  private H2Housekeeping(MVStore store, LongSupplier commits, Lock writeTurn) {
    this.store = store;
    this.commits = commits;
    this.writeTurn = writeTurn;
    this.thread = Thread.ofPlatform().daemon().name("sgm-h2-housekeeping").unstarted(this::run);
  }

  /**
   * Starts keeping the file of {@code connection}'s database compact; null for a database without a
   * file (in memory). {@code commits} counts the commits made so far; {@code writeTurn} is held by
   * the transaction writing, and a pass takes it too, since what it writes saves the store.
   */
  static H2Housekeeping start(Connection connection, LongSupplier commits, Lock writeTurn)
      throws SQLException {
    SessionLocal session = (SessionLocal) connection.unwrap(JdbcConnection.class).getSession();
    MVStore store = session.getDatabase().getStore().getMvStore();
    if (store.getFileStore() == null || store.getFileStore().isReadOnly()) {
      return null;
    }
    H2Housekeeping housekeeping = new H2Housekeeping(store, commits, writeTurn);
    housekeeping.thread.start();
    return housekeeping;
  }

  private void run() {
    long lastCommits = commits.getAsLong();
    while (true) {
      synchronized (wake) {
        try {
          if (!closed) {
            wake.wait(PERIOD_MS);
          }
        } catch (InterruptedException e) {
          return;
        }
        if (closed || store.isClosed()) {
          return;
        }
      }
      long now = commits.getAsLong();
      boolean idle = now == lastCommits;
      lastCommits = now;
      try {
        pass(idle);
      } catch (RuntimeException e) {
        if (closed || store.isClosed()) {
          return;
        }
        // A pass that fails changes nothing that commits rely on: the next one tries again.
        LOG.log(System.Logger.Level.WARNING, "compacting the store's file failed", e);
      }
    }
  }

  /** One round of housekeeping; {@code idle} when no commit came in since the last. */
  void pass(boolean idle) {
    writeTurn.lock();
    try {
      FileStore<?> file = store.getFileStore();
      if (file.getChunksFillRate() < TARGET_FILL_RATE
          && store.compact(TARGET_FILL_RATE, idle ? IDLE_WRITE_BYTES : BUSY_WRITE_BYTES)) {
        // The pages copied out are written with the next commit, and the chunks they left are
        // freed then; without one coming in, this writes them.
        store.commit();
      }
      if (idle && file instanceof RandomAccessStore random) {
        random.compactMoveChunks(FILE_FILL_RATE, IDLE_WRITE_BYTES, store);
      }
    } finally {
      writeTurn.unlock();
    }
  }

  /** The store kept: for tests. */
  MVStore store() {
    return store;
  }

  /**
   * Stops, waiting for a pass in progress: the store may be closed after this returns. The thread
   * is woken rather than interrupted: an interrupt in the middle of a file operation would close
   * the store's file under every other thread.
   */
  @Override
  public void close() {
    synchronized (wake) {
      closed = true;
      wake.notifyAll();
    }
    try {
      thread.join(TimeUnit.SECONDS.toMillis(10));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
