package dev.sgm.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.search.SearchIndex;
import dev.sgm.search.SearchQuery;
import dev.sgm.search.SearchResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Keeps the search index in step with storage. One thread follows the storage's commit-ordered
 * changes and applies them to the index; another embeds what records say ({@link EmbeddingQueue}),
 * when an embedding model is active, so embedding never sits on the write path. The index is
 * derived state: it records the sequence number it has applied, catches up from there after a
 * restart or a crash, and is rebuilt from storage when missing, unreadable, of another format or of
 * another store ({@link IndexCommitData}).
 *
 * <p>Read-your-writes: a text query first waits until the index has applied every change committed
 * before the query began ({@link ReadYourWrites}). Writers never wait for the index.
 *
 * <p>Changes go into the index as they commit, but are published to searches (a Lucene refresh,
 * which writes a segment) only when a query waits for them or every {@link
 * #REFRESH_INTERVAL_NANOS}: a refresh per write made tiny segments and merges that took a third of
 * a writer's processor time, and a refresh and an index commit once a second took more of a node's
 * time than indexing the other node's writes did (the README's two-node profile).
 */
final class SearchFollower implements AutoCloseable, ReadYourWrites.Follower {
  private static final System.Logger LOG = System.getLogger(SearchFollower.class.getName());

  private static final int BATCH = 1000;

  /**
   * How often the index records what it holds; a restart or a new holder of the directory catches
   * up from there, so a longer interval means more to index again after a crash.
   */
  private static final long COMMIT_INTERVAL_NANOS = 5_000_000_000L;

  /** How often the follower publishes to searches when no query asks it to. */
  private static final long REFRESH_INTERVAL_NANOS = 5_000_000_000L;

  /**
   * How long the follower lets commits gather after one woke it, unless a query waits: one read of
   * the log then takes several of them. Stepping at every commit read the log once per commit (196
   * reads for 200 commits in {@code SearchFollowerWakeTest}); on a shared database that is a
   * statement per commit for every node, and with this at most a hundred a second per node.
   */
  private static final long GATHER_NANOS = 10_000_000L;

  /** Where the follower stands. */
  enum State {
    STARTING,
    REBUILDING,
    READY,
    FAILED
  }

  /**
   * Lucene advises, once per process, to add the JDK's vector module for speed; the launcher adds
   * it where it matters (servers), and elsewhere the advice would only clutter a command's output.
   * Held so that the level set here is not lost with a collected logger.
   */
  private static final java.util.logging.Logger LUCENE_ADVICE =
      java.util.logging.Logger.getLogger("org.apache.lucene.internal.vectorization");

  private final boolean embedInBackground;

  /**
   * The longest a short command spends embedding what waits, before it answers by meaning or ends
   * (about three thousand short records on two cores): beyond it, the next process goes on.
   */
  static final long CATCH_UP_NANOS = 30_000_000_000L;

  /**
   * The most records a search by meaning waits to see embedded: more than that waiting is a bulk
   * import, which a search does not wait out (about six seconds of embedding on two cores).
   */
  static final int MEANING_WAIT_RECORDS = 1000;

  /** The longest a search by meaning waits for the embeddings of the writes before it. */
  static final long MEANING_WAIT_NANOS = 10_000_000_000L;

  /** Searches waiting for embeddings: the follower publishes them as soon as they are applied. */
  private final AtomicInteger meaningWaiters = new AtomicInteger();

  /**
   * Whether this process embeds what records say: from the start for a long-running process, from
   * {@link #catchUpEmbeddings} on for a short command. Set by the follower thread.
   */
  private volatile boolean embedding;

  /** Whether a short command asked to embed what waits ({@link #catchUpEmbeddings}). */
  private volatile boolean embeddingAsked;

  /** Whether this process has committed a write, which a short command embeds before it ends. */
  private volatile boolean wroteHere;

  private final Storage storage;
  private final Path directory;
  private final Embedder embedder;
  private final QueryVectors queryVectors;

  /** What the index records with each commit, and what that says on opening. */
  private final IndexCommitData commitData;

  private SearchIndex index;
  private volatile State state = State.STARTING;
  private volatile String failure;
  private volatile long rebuildDone;
  private volatile long rebuildTotal;
  private volatile boolean rebuildAsked;

  /**
   * The sequence number through which the follower has put every change into the index, published
   * or not (the follower's thread only).
   */
  private long applied = -1;

  /** Whether the index holds changes that searches do not see yet (the follower's thread only). */
  private boolean unpublished;

  /** Whether embeddings were put into the index since the last refresh (the follower's only). */
  private boolean vectorsUnpublished;

  private long lastRefresh = System.nanoTime();

  /**
   * Wakes the follower: hurried when it is needed at once (a query waits, embeddings are ready, a
   * rebuild is asked or the index closes); commits alone wait for {@link #GATHER_NANOS}.
   */
  private final CommitSignal signal = new CommitSignal();

  private final ReadYourWrites readYourWrites;

  private volatile boolean closed;
  private boolean dirty;
  private long lastCommit = System.nanoTime();
  private volatile Thread follower;

  /** The records this process embeds; empty and idle when it embeds none. */
  private final EmbeddingQueue embeddings;

  /**
   * Counts the batches of embeddings that became searchable. A query remembers the generation it
   * ranked with, so that embeddings arriving while someone pages do not reorder later pages.
   */
  private volatile long vectorGeneration;

  /**
   * @param directory where the index lives, or null to keep it in memory
   * @param embedder the active embedding model, or null
   * @param embedderName the name of the plugin that provides it, which the index records: vectors
   *     of another model are not mixed with its own
   * @param embedInBackground whether this process embeds what records say ({@link
   *     ConfigLoader#EMBED_IN_BACKGROUND}); when not, the records are embedded by the next process
   *     that does
   */
  SearchFollower(
      Storage storage,
      Path directory,
      Embedder embedder,
      String embedderName,
      boolean embedInBackground) {
    this.storage = storage;
    this.directory = directory;
    this.embedder = embedder;
    this.queryVectors = embedder == null ? null : new QueryVectors(embedder);
    this.commitData =
        new IndexCommitData(storage, embedder != null, embedder == null ? "" : embedderName);
    this.embedInBackground = embedder != null && embedInBackground;
    this.readYourWrites = new ReadYourWrites(storage, this);
    this.embeddings = new EmbeddingQueue(embedder, signal::hurry);
  }

  /** Opens the index (rebuilding it in the background when needed) and starts following. */
  void start() {
    if (LUCENE_ADVICE.getLevel() == null) {
      LUCENE_ADVICE.setLevel(java.util.logging.Level.SEVERE);
    }
    storage.onCommit(
        () -> {
          wroteHere = true;
          embeddings.callerActive();
          readYourWrites.committed();
          signal.signal();
        });
    if (embedInBackground) {
      embeddings.start();
      embedding = true;
    }
    follower = Thread.ofPlatform().daemon().name("sgm-search-follower").start(this::follow);
    signal.wakes(follower);
  }

  /** The active embedding model, or null. */
  Embedder embedder() {
    return embedder;
  }

  /** The embedding of a question, from the recent questions' when it is one of them. */
  Embedder.Question question(String text) {
    return queryVectors.of(text);
  }

  /** What a search of this index may rely on, and waits for. */
  ReadYourWrites readYourWrites() {
    return readYourWrites;
  }

  // ---- following

  private void follow() {
    try {
      open();
    } catch (RuntimeException | IOException e) {
      fail("the search index cannot be opened or rebuilt", e);
      return;
    }
    while (!closed) {
      try {
        if (rebuildAsked) {
          rebuild();
        }
        if (embeddingAsked && !embedding && state == State.READY) {
          queueMissingEmbeddings();
          embeddings.start();
          embedding = true;
        }
        boolean more = step();
        if (!more) {
          waitForWork();
        }
      } catch (RuntimeException | IOException e) {
        if (closed) {
          return;
        }
        LOG.log(System.Logger.Level.ERROR, "the search index fell behind; retrying", e);
        sleep(500);
      } catch (Error e) {
        // Not to be retried: text queries say so at once instead of waiting for a dead thread.
        fail("the search index stopped", new IllegalStateException(e.toString(), e));
        throw e;
      }
    }
  }

  private void open() throws IOException {
    if (directory == null) {
      index = SearchIndex.inMemory();
      rebuild();
      return;
    }
    index = IndexCommitData.openExisting(directory);
    if (index == null) {
      index = SearchIndex.create(directory);
      rebuild();
      return;
    }
    Map<String, String> data = index.commitData();
    String reason = commitData.rebuildReason(data);
    if (reason != null) {
      LOG.log(System.Logger.Level.DEBUG, "building the search index: " + reason);
      rebuild();
      return;
    }
    applied = IndexCommitData.appliedThrough(data);
    // Searches rank by meaning only the embeddings up to their generation: counting from 0 again
    // would leave out every embedding an earlier process added, until the count passed it.
    vectorGeneration = index.maxVectorGeneration();
    publish(applied);
    state = State.READY;
    if (embedding) {
      queueMissingEmbeddings();
    }
  }

  /** Queues every record the index holds without an embedding. */
  private void queueMissingEmbeddings() throws IOException {
    List<Long> missing = index.rowsWithoutVector();
    for (int i = 0; i < missing.size(); i += BATCH) {
      for (StoredRecord row :
          storage.live(missing.subList(i, Math.min(missing.size(), i + BATCH)))) {
        embeddings.enqueue(row.rowKey(), IndexDocuments.embeddingText(Json.parse(row.document())));
      }
    }
  }

  /**
   * Read-your-writes by meaning: waits until the records written before this search (those the
   * index has applied by now) are embedded and searchable, so that a question right after a store
   * finds it by meaning as well as by words. A long-running process, which embeds all along, waits
   * unless more than {@link #MEANING_WAIT_RECORDS} wait (a bulk import: the answer says how many),
   * and at most {@link #MEANING_WAIT_NANOS}; a short command, which embeds nothing of its own
   * accord, embeds what waits first ({@link #catchUpEmbeddings}), so that it finds by meaning what
   * other commands stored.
   */
  void awaitEarlierEmbeddings() {
    if (embedder == null) {
      return;
    }
    if (!embedInBackground) {
      catchUpEmbeddings(CATCH_UP_NANOS);
      return;
    }
    int pending = embeddings.pending();
    if (pending == 0 || pending > MEANING_WAIT_RECORDS) {
      return;
    }
    long through = embeddings.issued();
    meaningWaiters.incrementAndGet();
    signal.hurry();
    try {
      embeddings.awaitThrough(through, System.nanoTime() + MEANING_WAIT_NANOS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      meaningWaiters.decrementAndGet();
    }
  }

  /**
   * For a short command, which does not embed in the background: embeds every record waiting for an
   * embedding (those this process stored included) and waits until they are searchable, at most
   * {@code timeoutNanos}. So a command that stores and exits leaves its records embedded, and one
   * that searches by meaning with no server beside it finds what another command stored.
   */
  private void catchUpEmbeddings(long timeoutNanos) {
    long deadline = System.nanoTime() + timeoutNanos;
    long through = storage.committedSequence();
    embeddingAsked = true;
    signal.hurry();
    while (!closed && state != State.FAILED && System.nanoTime() < deadline) {
      if (embedding && readYourWrites.publishedThrough() >= through && embeddings.pending() == 0) {
        return;
      }
      signal.hurry();
      sleep(20);
    }
  }

  /**
   * Empties the index and indexes every live record again, reporting progress; later changes are
   * applied after it, as usual.
   */
  private void rebuild() throws IOException {
    state = State.REBUILDING;
    rebuildAsked = false;
    long through = storage.committedSequence();
    rebuildTotal = storage.countLive();
    rebuildDone = 0;
    index.deleteAll();
    embeddings.clear();
    long after = 0;
    while (true) {
      List<StoredRecord> rows = storage.scanLive(after, BATCH);
      if (rows.isEmpty()) {
        break;
      }
      for (StoredRecord row : rows) {
        put(row);
        after = row.rowKey();
      }
      rebuildDone += rows.size();
    }
    index.commit(commitData.through(through));
    index.refresh();
    lastCommit = System.nanoTime();
    lastRefresh = lastCommit;
    dirty = false;
    unpublished = false;
    vectorsUnpublished = false;
    applied = through;
    publish(through);
    state = State.READY;
    // Worth a line only when there was something to index (not for a new, empty store).
    LOG.log(
        rebuildDone > 0 ? System.Logger.Level.INFO : System.Logger.Level.DEBUG,
        "search index built: " + rebuildDone + " records, through write " + through);
  }

  /**
   * Applies one batch of changes (and finished embeddings), and publishes them when a query waits
   * or the refresh interval has passed; true when more are waiting.
   */
  private boolean step() throws IOException {
    // Read before the changes: every commit counted by then is among them or already applied.
    long made = readYourWrites.commitsMade();
    ChangeBatch batch = storage.changesAfter(applied, BATCH);
    for (Change change : batch.changes()) {
      StoredRecord row = change.current();
      if (row == null || row.deleted()) {
        index.delete(change.scope().qualify(change.id()));
      } else {
        put(row);
      }
    }
    applied = Math.max(applied, batch.through());
    boolean more = batch.changes().size() == BATCH;
    // Text first: a store must be findable by text when it returns, while the contract lets
    // semantic search lag. Embeddings wait while a backlog of changes is being applied.
    boolean appliedVectors = !more && applyEmbeddings();
    if (!batch.changes().isEmpty() || appliedVectors) {
      unpublished = true;
      dirty = true;
    }
    vectorsUnpublished |= appliedVectors;
    boolean readers = readYourWrites.searchesWaiting() || meaningWaiters.get() > 0;
    long now = System.nanoTime();
    if (!unpublished) {
      // Nothing new for searches to see (embeddings whose text changed meanwhile were dropped):
      // the mark moves on at once.
      embeddings.applied();
      if (applied > readYourWrites.publishedThrough()) {
        publish(applied);
      }
      if (!more) {
        readYourWrites.shown(made);
      }
    } else if ((readers && !more) || now - lastRefresh >= REFRESH_INTERVAL_NANOS) {
      index.refresh();
      lastRefresh = now;
      unpublished = false;
      if (vectorsUnpublished) {
        vectorGeneration++;
        vectorsUnpublished = false;
      }
      embeddings.applied();
      publish(applied);
      if (!more) {
        readYourWrites.shown(made);
      }
    }
    if (dirty && now - lastCommit > COMMIT_INTERVAL_NANOS) {
      // Records what is in the index, published or not: a restart catches up from there.
      index.commit(commitData.through(applied));
      lastCommit = System.nanoTime();
      dirty = false;
    }
    return more;
  }

  private void put(StoredRecord row) throws IOException {
    ObjectNode document = (ObjectNode) Json.parse(row.document());
    index.put(IndexDocuments.of(row, document, null, 0));
    if (embedding) {
      embeddings.enqueue(row.rowKey(), IndexDocuments.embeddingText(document));
    }
  }

  private void publish(long through) {
    readYourWrites.published(through);
  }

  /**
   * Sleeps until a commit, an urgent need or the next poll; after a commit, lets more gather. A
   * poll finds writes this process did not see (another node's), and publishes what no query asked
   * for within the refresh interval.
   */
  private void waitForWork() {
    long untilRefresh =
        unpublished ? REFRESH_INTERVAL_NANOS - (System.nanoTime() - lastRefresh) : Long.MAX_VALUE;
    signal.await(
        Math.max(1_000_000L, Math.min(200_000_000L, untilRefresh)), GATHER_NANOS, this::needed);
    if (Thread.interrupted()) {
      closed = true;
    }
  }

  /** Whether the follower has work that is not to wait: see {@link #signal}. */
  private boolean needed() {
    return signal.hurried() || closed || rebuildAsked || embeddings.hasReady();
  }

  private void fail(String what, Exception e) {
    failure = what + ": " + e.getMessage();
    state = State.FAILED;
    LOG.log(System.Logger.Level.ERROR, what, e);
    readYourWrites.failed();
  }

  // ---- embedding

  /**
   * Puts finished embeddings into the index, for records whose text has not changed since, under
   * the next vector generation (published by {@link #step} once they are searchable).
   */
  private boolean applyEmbeddings() throws IOException {
    List<EmbeddingQueue.Embedded> ready = embeddings.takeReady();
    if (ready.isEmpty()) {
      return false;
    }
    try {
      long generation = vectorGeneration + 1;
      Map<Long, EmbeddingQueue.Embedded> byRow = new HashMap<>();
      ready.forEach(e -> byRow.put(e.rowKey(), e));
      boolean applied = false;
      for (StoredRecord row : storage.live(byRow.keySet())) {
        ObjectNode document = (ObjectNode) Json.parse(row.document());
        EmbeddingQueue.Embedded e = byRow.get(row.rowKey());
        if (e.text().equals(IndexDocuments.embeddingText(document))) {
          index.put(IndexDocuments.of(row, document, e.vector(), generation));
          applied = true;
        }
      }
      return applied;
    } catch (IOException | RuntimeException e) {
      // Kept for the retry: putting a document again replaces it, so the ones already put are
      // harmless, and none is lost.
      embeddings.giveBack(ready);
      throw e;
    }
  }

  /** Records whose embedding is not in the index yet: semantic search cannot find them yet. */
  int pendingEmbeddings() {
    if (embedder != null && !embedding && state == State.READY) {
      try {
        return index.rowsWithoutVector().size();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return embeddings.pending();
  }

  // ---- what searches ask of the index

  @Override
  public boolean ready() {
    return state == State.READY;
  }

  @Override
  public String failure() {
    return state == State.FAILED ? failure : null;
  }

  @Override
  public void searchBegins() {
    embeddings.callerActive();
  }

  @Override
  public void hurry() {
    signal.hurry();
  }

  @Override
  public String behind() {
    if (state == State.REBUILDING) {
      return "the search index is being rebuilt ("
          + rebuildDone
          + " of "
          + rebuildTotal
          + " records); text search answers when it is done, other queries answer now";
    }
    return "the search index is behind the store; try again shortly";
  }

  /** Runs {@code query} on what the index shows now. */
  SearchResult search(SearchQuery query) {
    try {
      return index.search(query);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The newest vector generation searchable now. */
  long vectorGeneration() {
    return vectorGeneration;
  }

  /** The index's state, for discovery. */
  ObjectNode describe() {
    ObjectNode json = Json.object();
    json.put("state", state.name().toLowerCase(java.util.Locale.ROOT));
    if (state == State.REBUILDING) {
      json.put("rebuilt", rebuildDone);
      json.put("of", rebuildTotal);
    }
    if (state == State.FAILED) {
      json.put("reason", failure);
    }
    json.put("through", Math.max(0, readYourWrites.publishedThrough()));
    if (embedder != null) {
      json.put("pending_embeddings", pendingEmbeddings());
      json.set("query_cache", queryVectors.describe());
    }
    return json;
  }

  /** Asks the follower to rebuild the index from storage, and waits until it is done. */
  void reindex(SgmRuntime.Progress progress) {
    rebuildAsked = true;
    signal.hurry();
    long reported = -1;
    while (rebuildAsked || state != State.READY) {
      if (state == State.FAILED) {
        throw new SgmException(ErrorCode.UNAVAILABLE, "the rebuild failed: " + failure);
      }
      if (state == State.REBUILDING && rebuildDone != reported) {
        progress.report(rebuildDone, rebuildTotal);
        reported = rebuildDone;
      }
      sleep(50);
    }
    progress.report(rebuildDone, rebuildTotal);
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (wroteHere && embedder != null && !embedInBackground && state != State.FAILED) {
      // Also while the index is still being opened or built: it embeds once it is ready.
      catchUpEmbeddings(CATCH_UP_NANOS);
    }
    closed = true;
    signal.hurry();
    embeddings.close();
    try {
      if (follower != null) {
        follower.join(10_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (index != null) {
      try {
        if (state == State.READY && directory != null) {
          index.commit(commitData.through(readYourWrites.publishedThrough()));
        }
        index.close();
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "the search index did not close cleanly", e);
      }
    }
  }
}
