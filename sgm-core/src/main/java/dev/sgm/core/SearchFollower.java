package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.search.IndexedRecord;
import dev.sgm.search.SearchIndex;
import dev.sgm.search.SearchQuery;
import dev.sgm.search.SearchResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Keeps the search index in step with storage. One thread follows the storage's commit-ordered
 * changes and applies them to the index; another embeds what records say, when an embedding model
 * is active, so embedding never sits on the write path. The index is derived state: it records the
 * sequence number it has applied, catches up from there after a restart or a crash, and is rebuilt
 * from storage when missing, unreadable, of another format or of another store.
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

  /** The index format this build writes; an index of another format is rebuilt. */
  static final String FORMAT = "4";

  private static final String FORMAT_KEY = "sgm.format";
  private static final String STORAGE_KEY = "sgm.storage";
  private static final String SEQ_KEY = "sgm.seq";
  private static final String MODEL_KEY = "sgm.embedder";
  private static final int BATCH = 1000;
  private static final int EMBED_BATCH = 64;

  /**
   * The most finished embeddings one step puts into the index, and the most that wait for it: the
   * embedding thread pauses beyond that. A fast model would otherwise run far ahead of the index's
   * graph, and the follower would take ever larger lots, each a longer step and more memory.
   */
  static final int APPLY_BATCH = 1024;

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

  private static final RecordIndexer INDEXER = new RecordIndexer();

  /**
   * Lucene advises, once per process, to add the JDK's vector module for speed; the launcher adds
   * it where it matters (servers), and elsewhere the advice would only clutter a command's output.
   * Held so that the level set here is not lost with a collected logger.
   */
  private static final java.util.logging.Logger LUCENE_ADVICE =
      java.util.logging.Logger.getLogger("org.apache.lucene.internal.vectorization");

  private final boolean embedInBackground;
  private final String embedderName;

  private final Storage storage;
  private final Path directory;
  private final Embedder embedder;
  private final Object monitor = new Object();

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
  private Thread embedding;

  /** Records waiting for an embedding: row key to the text to embed. */
  private final LinkedHashMap<Long, String> toEmbed = new LinkedHashMap<>();

  /** Embeddings made and not yet applied by the follower. */
  private final List<Embedded> embedded = new ArrayList<>();

  private int embeddingNow;

  /** Embeddings put into the index (or being put), not yet searchable. */
  private int applyingNow;

  /**
   * Counts the batches of embeddings that became searchable. A query remembers the generation it
   * ranked with, so that embeddings arriving while someone pages do not reorder later pages.
   */
  private volatile long vectorGeneration;

  /**
   * When this process last committed a write or began a search, for yielding the processor to them.
   */
  private volatile long lastForeground;

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

  private record Embedded(long rowKey, String text, float[] vector) {}

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
    this.embedderName = embedder == null ? "" : embedderName;
    this.embedInBackground = embedder != null && embedInBackground;
    this.readYourWrites = new ReadYourWrites(storage, this);
  }

  /** Opens the index (rebuilding it in the background when needed) and starts following. */
  void start() {
    if (LUCENE_ADVICE.getLevel() == null) {
      LUCENE_ADVICE.setLevel(java.util.logging.Level.SEVERE);
    }
    storage.onCommit(
        () -> {
          lastForeground = System.nanoTime();
          readYourWrites.committed();
          signal.signal();
        });
    follower = Thread.ofPlatform().daemon().name("sgm-search-follower").start(this::follow);
    signal.wakes(follower);
    if (embedInBackground) {
      embedding = Thread.ofPlatform().daemon().name("sgm-embedding").start(this::embedLoop);
    }
  }

  /** The active embedding model, or null. */
  Embedder embedder() {
    return embedder;
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
    Files.createDirectories(directory);
    try {
      // An index of another format may not even open with this build's settings (its segments'
      // order, say), so its format is read first.
      Map<String, String> committed = SearchIndex.committedData(directory);
      if (!committed.isEmpty() && !FORMAT.equals(committed.get(FORMAT_KEY))) {
        LOG.log(
            System.Logger.Level.INFO,
            "rebuilding the search index: it is of format "
                + committed.get(FORMAT_KEY)
                + ", this build writes "
                + FORMAT);
        clear(directory);
      }
      index = SearchIndex.open(directory);
    } catch (IOException | RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING,
          "the search index in " + directory + " cannot be read (" + e + "); rebuilding it");
      clear(directory);
      index = SearchIndex.create(directory);
      rebuild();
      return;
    }
    Map<String, String> data = index.commitData();
    String reason = null;
    if (data.isEmpty()) {
      reason = "there is none yet";
    } else if (!storage.identity().equals(data.get(STORAGE_KEY))) {
      reason = "it was built from another store";
    } else if (embedder != null
        && !data.getOrDefault(MODEL_KEY, "").isEmpty()
        && !embedderName.equals(data.get(MODEL_KEY))) {
      reason = "its vectors come from the embedder " + data.get(MODEL_KEY);
    } else if (Long.parseLong(data.getOrDefault(SEQ_KEY, "0")) < storage.changesRetainedAfter()) {
      reason = "the changes it would follow from are older than the change log keeps";
    } else if (Long.parseLong(data.getOrDefault(SEQ_KEY, "0")) > storage.committedSequence()) {
      // The store went back in time (a backup restored): new writes would reuse numbers the index
      // believes it has applied, and be skipped.
      reason = "it has applied writes the store does not have (was the store restored?)";
    }
    if (reason != null) {
      LOG.log(System.Logger.Level.DEBUG, "building the search index: " + reason);
      rebuild();
      return;
    }
    applied = Long.parseLong(data.getOrDefault(SEQ_KEY, "0"));
    // Searches rank by meaning only the embeddings up to their generation: counting from 0 again
    // would leave out every embedding an earlier process added, until the count passed it.
    vectorGeneration = index.maxVectorGeneration();
    publish(applied);
    state = State.READY;
    if (embedInBackground) {
      List<Long> missing = index.rowsWithoutVector();
      for (int i = 0; i < missing.size(); i += BATCH) {
        for (StoredRecord row :
            storage.live(missing.subList(i, Math.min(missing.size(), i + BATCH)))) {
          enqueueEmbedding(row.rowKey(), embeddingText(Json.parse(row.document())));
        }
      }
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
    synchronized (monitor) {
      toEmbed.clear();
      embedded.clear();
    }
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
    index.commit(commitData(through));
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
    boolean readers = readYourWrites.searchesWaiting();
    long now = System.nanoTime();
    if (!unpublished) {
      // Nothing new for searches to see (embeddings whose text changed meanwhile were dropped):
      // the mark moves on at once.
      synchronized (monitor) {
        applyingNow = 0;
      }
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
      synchronized (monitor) {
        applyingNow = 0;
      }
      publish(applied);
      if (!more) {
        readYourWrites.shown(made);
      }
    }
    if (dirty && now - lastCommit > COMMIT_INTERVAL_NANOS) {
      // Records what is in the index, published or not: a restart catches up from there.
      index.commit(commitData(applied));
      lastCommit = System.nanoTime();
      dirty = false;
    }
    return more;
  }

  private Map<String, String> commitData(long through) {
    Map<String, String> data = new HashMap<>();
    data.put(FORMAT_KEY, FORMAT);
    data.put(STORAGE_KEY, storage.identity());
    data.put(SEQ_KEY, Long.toString(through));
    data.put(MODEL_KEY, embedderName);
    return data;
  }

  private void put(StoredRecord row) throws IOException {
    ObjectNode document = (ObjectNode) Json.parse(row.document());
    index.put(indexed(row, document, null, 0));
    if (embedInBackground) {
      enqueueEmbedding(row.rowKey(), embeddingText(document));
    }
  }

  /** The index's view of a stored row. */
  static IndexedRecord indexed(
      StoredRecord row, ObjectNode document, float[] vector, long vectorGeneration) {
    RecordIndex filters = INDEXER.index(document);
    List<String> fields = new ArrayList<>(filters.fields().size());
    for (RecordIndex.FieldValue field : filters.fields()) {
      fields.add(fieldKey(field));
    }
    Scope scope = row.scope();
    return new IndexedRecord(
        scope.qualify(row.id()),
        row.rowKey(),
        scope.canonical(),
        scope.canonicalPairs(),
        row.id(),
        row.type(),
        filters.tags(),
        fields,
        text(document.get("title")),
        text(document.get("content")),
        row.createdMicros(),
        row.updatedMicros(),
        row.createdSeq(),
        row.version(),
        vector,
        vectorGeneration,
        Sensitivity.ofJson(document.path("sensitivity").path("level")).ordinal());
  }

  /** A data/metadata criterion as the index keeps it. */
  static String fieldKey(RecordIndex.FieldValue field) {
    return field.path() + '\u0000' + field.value();
  }

  private static String text(JsonNode node) {
    return node != null && node.isTextual() ? node.textValue() : null;
  }

  /** What the embedding model reads of a record: its title and content. */
  static String embeddingText(JsonNode document) {
    String title = text(document.get("title"));
    String content = text(document.get("content"));
    StringBuilder text = new StringBuilder();
    if (title != null && !title.isBlank()) {
      text.append(title).append('\n');
    }
    if (content != null) {
      text.append(content);
    }
    return text.toString();
  }

  private void publish(long through) {
    readYourWrites.published(through);
  }

  private void wakeNow() {
    signal.hurry();
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
    if (signal.hurried() || closed || rebuildAsked) {
      return true;
    }
    synchronized (monitor) {
      return !embedded.isEmpty();
    }
  }

  private void fail(String what, Exception e) {
    failure = what + ": " + e.getMessage();
    state = State.FAILED;
    LOG.log(System.Logger.Level.ERROR, what, e);
    readYourWrites.failed();
  }

  // ---- embedding

  private void enqueueEmbedding(long rowKey, String text) {
    synchronized (monitor) {
      toEmbed.remove(rowKey);
      toEmbed.put(rowKey, text);
      monitor.notifyAll();
    }
  }

  private void embedLoop() {
    try {
      // Loads the model now, off the path of the first query.
      embedder.dimensions();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "the embedding model cannot be loaded", e);
      return;
    }
    while (!closed) {
      Map<Long, String> batch = new LinkedHashMap<>();
      boolean busy = System.nanoTime() - lastForeground < BUSY_NANOS;
      int size = busy ? EMBED_BATCH_WHILE_BUSY : EMBED_BATCH;
      synchronized (monitor) {
        while ((toEmbed.isEmpty() || embedded.size() >= APPLY_BATCH) && !closed) {
          try {
            monitor.wait(1000);
          } catch (InterruptedException e) {
            return;
          }
        }
        Iterator<Map.Entry<Long, String>> it = toEmbed.entrySet().iterator();
        while (it.hasNext() && batch.size() < size) {
          Map.Entry<Long, String> next = it.next();
          batch.put(next.getKey(), next.getValue());
          it.remove();
        }
        embeddingNow = batch.size();
      }
      if (batch.isEmpty()) {
        continue;
      }
      List<Embedded> done = new ArrayList<>(batch.size());
      long started = System.nanoTime();
      try {
        List<float[]> vectors = embedder.embedPassages(new ArrayList<>(batch.values()));
        int i = 0;
        for (Map.Entry<Long, String> e : batch.entrySet()) {
          done.add(new Embedded(e.getKey(), e.getValue(), vectors.get(i++)));
        }
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "embedding failed; these records stay lexical only", e);
      }
      synchronized (monitor) {
        embedded.addAll(done);
        embeddingNow = 0;
        monitor.notifyAll();
      }
      wakeNow();
      long now = System.nanoTime();
      long rest = restMillis(busy, now - lastForeground < BUSY_NANOS, now - started);
      if (rest > 0) {
        sleep(rest);
      }
    }
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

  /**
   * Puts finished embeddings into the index, for records whose text has not changed since, under
   * the next vector generation (published by {@link #step} once they are searchable).
   */
  private boolean applyEmbeddings() throws IOException {
    List<Embedded> ready;
    synchronized (monitor) {
      if (embedded.isEmpty()) {
        return false;
      }
      List<Embedded> first = embedded.subList(0, Math.min(APPLY_BATCH, embedded.size()));
      ready = new ArrayList<>(first);
      first.clear();
      applyingNow += ready.size();
      monitor.notifyAll(); // the embedding thread may wait for room
    }
    try {
      long generation = vectorGeneration + 1;
      Map<Long, Embedded> byRow = new HashMap<>();
      ready.forEach(e -> byRow.put(e.rowKey(), e));
      boolean applied = false;
      for (StoredRecord row : storage.live(byRow.keySet())) {
        ObjectNode document = (ObjectNode) Json.parse(row.document());
        Embedded e = byRow.get(row.rowKey());
        if (e.text().equals(embeddingText(document))) {
          index.put(indexed(row, document, e.vector(), generation));
          applied = true;
        }
      }
      return applied;
    } catch (IOException | RuntimeException e) {
      // Kept for the retry: putting a document again replaces it, so the ones already put are
      // harmless, and none is lost.
      synchronized (monitor) {
        embedded.addAll(0, ready);
        applyingNow -= ready.size();
      }
      throw e;
    }
  }

  /** Records whose embedding is not in the index yet: semantic search cannot find them yet. */
  int pendingEmbeddings() {
    if (embedder != null && !embedInBackground && state == State.READY) {
      try {
        return index.rowsWithoutVector().size();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    synchronized (monitor) {
      return toEmbed.size() + embeddingNow + embedded.size() + applyingNow;
    }
  }

  // ---- queries

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
    lastForeground = System.nanoTime();
  }

  @Override
  public void hurry() {
    wakeNow();
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
    }
    return json;
  }

  /** Asks the follower to rebuild the index from storage, and waits until it is done. */
  void reindex(SgmRuntime.Progress progress) {
    rebuildAsked = true;
    wakeNow();
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

  private static void clear(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
        if (!p.equals(dir)) {
          Files.delete(p);
        }
      }
    }
  }

  @Override
  public void close() {
    closed = true;
    wakeNow();
    try {
      if (follower != null) {
        follower.join(10_000);
      }
      if (embedding != null) {
        embedding.join(10_000);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (index != null) {
      try {
        if (state == State.READY && directory != null) {
          index.commit(commitData(readYourWrites.publishedThrough()));
        }
        index.close();
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "the search index did not close cleanly", e);
      }
    }
  }
}
