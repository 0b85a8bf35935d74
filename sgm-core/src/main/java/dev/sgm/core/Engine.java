package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.BatchStoreResult;
import dev.sgm.api.Caller;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.ChangesResult;
import dev.sgm.api.ContentReference;
import dev.sgm.api.DeleteRequest;
import dev.sgm.api.DeleteResult;
import dev.sgm.api.DiscoverRequest;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.ProtocolVersion;
import dev.sgm.api.PutContentRequest;
import dev.sgm.api.RawNumberNode;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.ReadResult;
import dev.sgm.api.RequestReader;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.Scope;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.StoreResult;
import dev.sgm.api.StoredContent;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.RecordIndex.FieldValue;
import dev.sgm.api.spi.RecordWriter;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.WriteLog;
import dev.sgm.search.SearchIndex;
import dev.sgm.search.SearchQuery;
import dev.sgm.search.SearchResult;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The SGM engine: the one implementation of {@link SgmService}. It decides every semantic of the
 * contract (validation, server-set fields, idempotence, versions, conflicts, scope modes, paging)
 * and leaves storage only the keeping and finding of rows.
 */
final class Engine implements SgmService {
  private static final System.Logger LOG = System.getLogger(Engine.class.getName());

  /** The longest query text given to the embedding model. */
  static final int MAX_EMBEDDED_QUERY_CHARS = 2000;

  private final Storage storage;
  private final SearchFollower search;
  private final ChangeFeed feed;
  private final ChangeNotifier notifier;
  private final RecordValidator validator;
  private final RecordIndexer indexer;
  private final ActivePlugins plugins;
  private final Clock clock;
  private final DiscoveryDocument discovery;
  private final AccessTokens tokens;
  private final String storageName;
  private final ScopeCensus census;
  private final AuditTrail audit;

  Engine(
      Storage storage,
      String storageName,
      SearchFollower search,
      ChangeFeed feed,
      ChangeNotifier notifier,
      RecordValidator validator,
      RecordIndexer indexer,
      ActivePlugins plugins,
      Clock clock,
      DiscoveryDocument discovery,
      AccessTokens tokens,
      AuditTrail audit) {
    this.tokens = tokens;
    this.audit = audit;
    this.storage = storage;
    this.storageName = storageName;
    this.census = new ScopeCensus(storage);
    this.search = search;
    this.feed = feed;
    this.notifier = notifier;
    this.validator = validator;
    this.indexer = indexer;
    this.plugins = plugins;
    this.clock = clock;
    this.discovery = discovery;
  }

  /** Ok while the storage answers; {@code unavailable} while it does not (a database gone). */
  @Override
  public JsonNode health() {
    String status;
    try {
      storage.checkAvailable();
      status = "ok";
    } catch (SgmException e) {
      if (e.code() != ErrorCode.UNAVAILABLE) {
        throw e;
      }
      status = "unavailable";
    }
    ObjectNode health = Json.object().put("status", status);
    health.putObject("storage").put("name", storageName).put("status", status);
    return health;
  }

  @Override
  public DiscoveryDocument discover(Caller caller, DiscoverRequest request) {
    DiscoveryDocument document = discovery.withRetrieval(retrievalDescription());
    if (!request.acceptVersions().isEmpty()) {
      boolean compatible = false;
      for (String accepted : request.acceptVersions()) {
        ProtocolVersion version = ProtocolVersion.parse(accepted);
        compatible |= document.supportedVersions().stream().anyMatch(version::isCompatibleWith);
      }
      if (!compatible) {
        String reason =
            "none of "
                + request.acceptVersions()
                + " is compatible with the supported versions "
                + document.supportedVersions();
        throw new SgmException(
            ErrorCode.UNSUPPORTED_VERSION,
            reason,
            List.of(new FieldError("accept_versions", reason)));
      }
    }
    return document;
  }

  /** Discovery's {@code retrieval} object: the modes, the default, the model, the index's state. */
  private ObjectNode retrievalDescription() {
    ObjectNode json = Json.object();
    Embedder embedder = search.embedder();
    ArrayNode modes = json.putArray("modes");
    modes.add(RetrieveQuery.Mode.TEXT.wireName());
    if (embedder != null) {
      modes.add(RetrieveQuery.Mode.SEMANTIC.wireName());
      modes.add(RetrieveQuery.Mode.HYBRID.wireName());
    }
    json.put(
        "default_mode",
        (embedder != null ? RetrieveQuery.Mode.HYBRID : RetrieveQuery.Mode.TEXT).wireName());
    if (embedder != null) {
      json.putObject("embedding")
          .put("model", embedder.model())
          .put("dimensions", embedder.dimensions())
          .put(
              "lag",
              "records are embedded after their store returns: semantic search finds a record once"
                  + " it is embedded (pending_embeddings says how many wait), lexical search at"
                  + " once");
    }
    json.set("index", search.describe());
    return json;
  }

  @Override
  public StoreResult store(Caller caller, StoreRequest request) {
    ObjectNode record = prepare(request.record());
    // One record: short enough to share a commit with other callers' stores.
    return storage.inShortTransaction(
        tx ->
            apply(
                tx,
                caller,
                record,
                request.expectedVersion(),
                request.ifAbsent(),
                Change.Kind.STORED));
  }

  @Override
  public BatchStoreResult storeBatch(Caller caller, BatchStoreRequest request) {
    List<ObjectNode> records = new ArrayList<>(request.records().size());
    for (int i = 0; i < request.records().size(); i++) {
      try {
        records.add(prepare(request.records().get(i)));
      } catch (SgmException e) {
        throw e.withFieldPrefix("records[" + i + "].");
      }
    }
    return storage.inTransaction(
        tx -> {
          List<BatchStoreResult.Item> items = new ArrayList<>(records.size());
          for (int i = 0; i < records.size(); i++) {
            StoreResult result;
            try {
              result =
                  apply(tx, caller, records.get(i), null, request.ifAbsent(), Change.Kind.STORED);
            } catch (SgmException e) {
              throw e.withFieldPrefix("records[" + i + "].");
            }
            MemoryRecord stored = result.record();
            items.add(
                new BatchStoreResult.Item(
                    stored.scope(),
                    stored.id(),
                    stored.version(),
                    result.created(),
                    result.changed()));
          }
          return new BatchStoreResult(items);
        });
  }

  /**
   * Validates a record (core rules, then the owning profile's, which check {@code data} only when
   * it is present: CONTRACT §7) and returns a private copy, completed with what the profile
   * derives.
   */
  private ObjectNode prepare(JsonNode json) {
    ObjectNode record = validator.validate(json).deepCopy();
    Profile owner = plugins.ownerOf(record.path("type").asText());
    if (owner != null && record.has("data")) {
      owner.validate(record);
      owner.complete(record);
    }
    return record;
  }

  /**
   * {@code forbidden} when a principal's record references content (by hash) that this principal
   * has not put: a reference never resolves content its writer could not read. The answer is the
   * same whether or not the hash is held, so it tells nothing of other principals' content.
   */
  private void requireHeldContent(Caller caller, ObjectNode record) {
    JsonNode reference = record.path("reference");
    if (caller.grants().isOwner()
        || caller.principal().isEmpty()
        || !ContentReference.KIND.equals(reference.path("kind").asText())) {
      return;
    }
    String hash = reference.path("hash").asText("");
    if (!storage.holdsContent(hash, caller.principal().get())) {
      throw new SgmException(
          ErrorCode.FORBIDDEN,
          "principal '"
              + caller.principal().get()
              + "' may reference only content it has put: put_content it first (the same bytes"
              + " give the same hash)",
          List.of(new FieldError("reference.hash", "content this principal has not put")));
    }
  }

  private StoreResult apply(
      StorageTransaction tx,
      Caller caller,
      ObjectNode validated,
      Long expectedVersion,
      boolean ifAbsent,
      Change.Kind kind) {
    // A fresh copy per attempt: storage may run this work again after a concurrent-write retry.
    ObjectNode record = validated.deepCopy();
    Scope scope = Scope.fromJson(record.get("scope"), "scope", ErrorCode.INVALID_RECORD);
    String id = record.get("id").textValue();
    Optional<StoredRecord> existing = tx.findForUpdate(scope, id);
    StoredRecord live = existing.filter(r -> !r.deleted()).orElse(null);
    Authorization.requireStore(caller, scope, record, live);
    requireHeldContent(caller, record);
    if (ifAbsent && live != null) {
      throw new SgmException(
          ErrorCode.CONFLICT,
          "record " + scope.qualify(id) + " already exists (version " + live.version() + ")");
    }
    if (expectedVersion != null) {
      if (live == null) {
        throw new SgmException(
            ErrorCode.CONFLICT,
            "expected version "
                + expectedVersion
                + " of "
                + scope.qualify(id)
                + ", but it does not exist");
      }
      if (live.version() != expectedVersion) {
        throw versionConflict(expectedVersion, scope, id, live.version());
      }
    }
    Instant now = clock.instant();
    String nowText = Timestamps.format(now);
    caller.principal().ifPresent(p -> ((ObjectNode) record.get("provenance")).put("principal", p));
    long version;
    if (live != null) {
      ObjectNode stored = (ObjectNode) Json.parse(live.document());
      fillServerFields(record, stored.path("created_at").asText(), caller, stored);
      if (MemoryRecord.sameDocument(record, stored)) {
        return new StoreResult(MemoryRecord.of(stored), false, false);
      }
      version = live.version() + 1;
    } else {
      fillServerFields(record, nowText, caller, null);
      // A record re-created over a hidden (deleted) one keeps counting, so versions never repeat.
      version = existing.map(r -> r.version() + 1).orElse(1L);
    }
    // A raw number, like every number parsed from the wire, so that stored and re-read trees
    // compare equal.
    record.set("version", RawNumberNode.of(version));
    record.put("updated_at", nowText);
    Instant createdAt = Timestamps.tryParse(record.get("created_at").textValue());
    String document = Json.write(record);
    tx.put(
        StoredRecord.toWrite(
            scope,
            id,
            record.get("type").textValue(),
            version,
            Timestamps.toMicros(createdAt),
            Timestamps.toMicros(now),
            false,
            document,
            indexer.index(record)),
        new WriteLog(kind, writerName(caller, record), plugins.keepsHistory()));
    MemoryRecord stored = MemoryRecord.of(record);
    Profile owner = plugins.ownerOf(stored.type());
    if (owner != null) {
      owner.afterStore(writer(tx, caller), stored);
    }
    return new StoreResult(stored, live == null, true);
  }

  /** Who a history entry names as the writer: the authenticated principal, else the agent. */
  private static String writerName(Caller caller, JsonNode record) {
    return caller.principal().orElse(record.path("provenance").path("agent").asText(""));
  }

  /**
   * Sets the server-set fields the client left out; never overwrites a client's value. On an update
   * the values come from the stored record, so that re-sending the same document is recognised as
   * unchanged.
   */
  private static void fillServerFields(
      ObjectNode record, String createdAt, Caller caller, ObjectNode stored) {
    if (!record.has("created_at")) {
      record.put("created_at", createdAt);
    }
    if (!record.has("schema_version")) {
      record.put(
          "schema_version",
          stored != null && stored.has("schema_version")
              ? stored.get("schema_version").asText()
              : ProtocolVersion.SCHEMA_VERSION);
    }
    ObjectNode provenance = (ObjectNode) record.get("provenance");
    JsonNode storedProvenance = stored == null ? null : stored.get("provenance");
    if (!provenance.has("created_at")) {
      provenance.put(
          "created_at",
          storedProvenance != null && storedProvenance.has("created_at")
              ? storedProvenance.get("created_at").asText()
              : record.get("created_at").asText());
    }
    if (!provenance.has("origin")) {
      provenance.put(
          "origin",
          storedProvenance != null && storedProvenance.has("origin")
              ? storedProvenance.get("origin").asText()
              : caller.origin());
    }
  }

  @Override
  public ReadResult read(Caller caller, ReadRequest request) {
    Authorization.requireRead(caller, request.scope());
    StoredRecord row =
        storage
            .find(request.scope(), request.id())
            .filter(r -> !r.deleted())
            .orElseThrow(() -> notFound(request.scope(), request.id()));
    MemoryRecord stored = MemoryRecord.ofStoredText(row.document());
    MemoryRecord record = Authorization.visibleInReadableScope(caller, stored);
    if (!request.resolve() || record.reference().isEmpty()) {
      return ReadResult.of(record);
    }
    JsonNode reference = record.reference().get();
    String kind = reference.path("kind").asText("");
    if (!ContentReference.KIND.equals(kind)) {
      return new ReadResult(
          record,
          true,
          null,
          false,
          "reference kind '"
              + kind
              + "' cannot be resolved here; resolvable kinds: [content-hash]");
    }
    String hash = reference.path("hash").asText("");
    Optional<StoredContent> content = storage.getContent(hash);
    if (content.isEmpty()) {
      return new ReadResult(
          record, true, null, false, "content " + hash + " is not held by this implementation");
    }
    StoredContent held = content.get();
    boolean binary = !"utf-8".equals(held.reference().encoding());
    String body =
        binary
            ? Base64.getEncoder().encodeToString(held.bytes())
            : new String(held.bytes(), StandardCharsets.UTF_8);
    return new ReadResult(record, true, body, binary, null);
  }

  private static SgmException versionConflict(long expected, Scope scope, String id, long stored) {
    return new SgmException(
        ErrorCode.CONFLICT,
        "expected version "
            + expected
            + " of "
            + scope.qualify(id)
            + ", but the stored version is "
            + stored);
  }

  private static SgmException notFound(Scope scope, String id) {
    return new SgmException(ErrorCode.NOT_FOUND, "no record " + scope.qualify(id));
  }

  @Override
  public RetrieveResult retrieve(Caller caller, RetrieveQuery query) {
    Authorization.requireRetrieve(caller, query);
    List<Scope> within = Authorization.readableWithin(caller, query);
    if (within != null && within.isEmpty()) {
      return new RetrieveResult(List.of(), 0, null);
    }
    if (query.text() != null) {
      return relevance(caller, query, within);
    }
    if (!Authorization.seesAllLevels(caller) && !withheldFilters(query).isEmpty()) {
      // Storage does not know levels; the index does, and leaves the records above the clearance
      // out of a filter on what they withhold.
      return relevance(caller, query, within);
    }
    List<FieldValue> filters = filters(query);
    Cursors.Cursor cursor = query.cursor() == null ? null : Cursors.decode(query);
    // Without text there is nothing to score by: relevance falls back to the tie-breaker order.
    RetrieveQuery.OrderBy orderBy =
        query.orderBy() == RetrieveQuery.OrderBy.RELEVANCE
            ? RetrieveQuery.OrderBy.UPDATED_AT
            : query.orderBy();
    StoragePage page =
        storage.query(
            new StorageQuery(
                query.scope(),
                query.scopeMode(),
                query.ids(),
                query.types(),
                query.tags(),
                query.tagsMode() == RetrieveQuery.TagsMode.ANY,
                filters,
                micros(query.createdAfter()),
                micros(query.createdBefore()),
                micros(query.updatedAfter()),
                orderBy,
                query.ascending(),
                query.limit() + 1,
                cursor == null ? null : cursor.after(),
                cursor == null ? -1 : cursor.mark(),
                within));
    List<StoragePage.Row> rows = page.rows();
    String next = null;
    if (rows.size() > query.limit()) {
      rows = rows.subList(0, query.limit());
      next = Cursors.encode(query, rows.get(rows.size() - 1).position(), page.mark());
    }
    List<MemoryRecord> records = new ArrayList<>(rows.size());
    for (StoragePage.Row row : rows) {
      MemoryRecord seen = Authorization.visible(caller, MemoryRecord.ofStoredText(row.document()));
      if (seen == null) {
        // Storage was asked for the readable scopes alone; this is the second line.
        LOG.log(
            System.Logger.Level.ERROR,
            "storage returned a record outside the caller's grants for " + query.scope());
        continue;
      }
      records.add(seen);
    }
    return new RetrieveResult(records, page.total(), next);
  }

  private static List<FieldValue> filters(RetrieveQuery query) {
    List<FieldValue> filters = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : query.filter().entrySet()) {
      filters.add(new FieldValue(e.getKey(), RecordIndexer.normalise(e.getValue())));
    }
    return filters;
  }

  /** The filters on {@code data}, which a record above the caller's clearance withholds. */
  private static List<FieldValue> withheldFilters(RetrieveQuery query) {
    return filters(query).stream().filter(f -> withheld(f.path())).toList();
  }

  private static boolean withheld(String path) {
    return Authorization.WITHHELD.stream()
        .anyMatch(w -> path.equals(w) || path.startsWith(w + "."));
  }

  /**
   * A text query, answered by the search index: every other criterion, and the caller's readable
   * scopes ({@code within}, null for all) filter inside the index query, the index ranks, and the
   * page's records are read from storage, redacted above the caller's clearance. Also a query
   * without text that filters on withheld fields for a caller who does not see every level.
   */
  private RetrieveResult relevance(Caller caller, RetrieveQuery query, List<Scope> within) {
    boolean hasText = query.text() != null;
    Embedder embedder = search.embedder();
    RetrieveQuery.Mode mode = hasText ? query.mode() : RetrieveQuery.Mode.TEXT;
    if (mode == null) {
      mode = embedder != null ? RetrieveQuery.Mode.HYBRID : RetrieveQuery.Mode.TEXT;
    }
    if (mode != RetrieveQuery.Mode.TEXT && embedder == null) {
      throw new SgmException(
          ErrorCode.UNSUPPORTED_CAPABILITY,
          "mode "
              + mode.wireName()
              + " needs an embedding model, and none is active here; put an embedder plugin"
              + " (sgm-embedding-bge) in plugins/, or ask with mode text",
          List.of(new FieldError("mode", "no embedding model is active")));
    }
    boolean byRelevance = hasText && query.orderBy() == RetrieveQuery.OrderBy.RELEVANCE;
    if (!byRelevance) {
      // Ordered by time, the text selects the records (any analysed word) and time orders them.
      mode = RetrieveQuery.Mode.TEXT;
    }
    Cursors.Relevance cursor = query.cursor() == null ? null : Cursors.decodeRelevance(query);
    // A first page on a storage that answers the committed sequence only in a round trip searches
    // what the index shows now, then reads that sequence with the page's rows (see below).
    // Otherwise the query waits first for the index to show every write committed before it.
    boolean checkAfter = cursor == null && storage.committedSequenceCostsARoundTrip();
    long mark =
        cursor != null
            ? cursor.mark()
            : checkAfter ? search.visible() : storage.committedSequence();
    if (checkAfter && mark < 0) {
      checkAfter = false;
      mark = storage.committedSequence();
    }
    // A model reads a few hundred words at most; a longer text would only cost time.
    String asked = query.text();
    boolean cut = hasText && asked.length() > MAX_EMBEDDED_QUERY_CHARS;
    float[] vector =
        mode == RetrieveQuery.Mode.TEXT
            ? null
            : embedder.embedQuery(cut ? asked.substring(0, MAX_EMBEDDED_QUERY_CHARS) : asked);
    Set<String> scopes = new LinkedHashSet<>();
    List<String> pairs = null;
    switch (query.scopeMode()) {
      case EXACT -> scopes.add(query.scope().canonical());
      case ANCESTORS -> query.scope().selfAndAncestors().forEach(s -> scopes.add(s.canonical()));
      case DESCENDANTS -> pairs = query.scope().canonicalPairs();
      case LINEAGE -> {
        query.scope().selfAndAncestors().forEach(s -> scopes.add(s.canonical()));
        pairs = query.scope().canonicalPairs();
      }
    }
    List<String> fields = new ArrayList<>();
    List<String> withheldFields = new ArrayList<>();
    for (FieldValue filter : filters(query)) {
      (withheld(filter.path()) ? withheldFields : fields).add(SearchFollower.fieldKey(filter));
    }
    SearchQuery.Order order =
        switch (query.orderBy()) {
          case RELEVANCE ->
              hasText
                  ? SearchQuery.Order.RELEVANCE
                  // Without text there is nothing to score by: as a structured retrieve.
                  : query.ascending()
                      ? SearchQuery.Order.UPDATED_ASC
                      : SearchQuery.Order.UPDATED_DESC;
          case UPDATED_AT ->
              query.ascending() ? SearchQuery.Order.UPDATED_ASC : SearchQuery.Order.UPDATED_DESC;
          case CREATED_AT ->
              query.ascending() ? SearchQuery.Order.CREATED_ASC : SearchQuery.Order.CREATED_DESC;
        };
    SearchResult result;
    List<StoredRecord> live;
    int pending;
    long generation;
    while (true) {
      search.awaitVisible(mark);
      // In this order: the records waiting for an embedding once every write up to the mark is
      // applied, then the generation, which includes every embedding that no longer waits. So
      // "none waiting" means this search ranks every record by meaning.
      pending = mode == RetrieveQuery.Mode.TEXT ? 0 : search.pendingEmbeddings();
      generation = cursor != null ? cursor.vectorGeneration() : search.vectorGeneration();
      result =
          search.search(
              SearchQuery.of(query.text(), SearchQuery.Ranking.valueOf(mode.name()), query.limit())
                  .scopes(scopes)
                  .requiredPairs(pairs)
                  .ids(query.ids())
                  .types(query.types())
                  .tags(query.tags(), query.tagsMode() == RetrieveQuery.TagsMode.ANY)
                  .fields(fields)
                  .createdAfter(micros(query.createdAfter()))
                  .createdBefore(micros(query.createdBefore()))
                  .updatedAfter(micros(query.updatedAfter()))
                  .mark(mark)
                  .vectorGeneration(generation)
                  .vector(vector)
                  .order(order)
                  .offset(cursor == null ? 0 : cursor.offset())
                  .after(
                      cursor == null ? null : cursor.after(),
                      cursor == null ? null : cursor.frozen())
                  .within(
                      within == null ? null : within.stream().map(Scope::canonicalPairs).toList())
                  .clearance(
                      Authorization.seesAllLevels(caller)
                          ? SearchQuery.ALL_LEVELS
                          : caller.grants().clearance().ordinal(),
                      withheldFields)
                  .build());
      List<Long> keys = result.hits().stream().map(SearchResult.Hit::rowKey).toList();
      if (!checkAfter) {
        live = storage.live(keys);
        break;
      }
      Storage.LiveRows checked = storage.liveAndCommitted(keys);
      if (checked.committedSequence() <= mark) {
        live = checked.rows(); // the index showed every write committed before the query
        break;
      }
      // Something committed that the index did not show, perhaps before this query began: wait
      // for the index to show it, and search again.
      mark = checked.committedSequence();
      checkAfter = false;
    }
    Map<Long, StoredRecord> rows = new HashMap<>();
    for (StoredRecord row : live) {
      rows.put(row.rowKey(), row);
    }
    List<MemoryRecord> records = new ArrayList<>(result.hits().size());
    List<Double> scores = new ArrayList<>(result.hits().size());
    for (SearchResult.Hit hit : result.hits()) {
      StoredRecord row = rows.get(hit.rowKey());
      if (row == null) {
        continue; // deleted since the index answered
      }
      if (!query.scopeMode().covers(query.scope(), row.scope())) {
        LOG.log(
            System.Logger.Level.ERROR,
            "the search index returned "
                + row.scope().qualify(row.id())
                + " outside the query's"
                + " scope; left out");
        continue;
      }
      MemoryRecord seen = Authorization.visible(caller, MemoryRecord.ofStoredText(row.document()));
      if (seen == null) {
        LOG.log(
            System.Logger.Level.ERROR,
            "the search index returned "
                + row.scope().qualify(row.id())
                + " outside the caller's grants; left out");
        continue;
      }
      records.add(seen);
      scores.add(hit.value());
    }
    String next = null;
    if (result.more() && !result.hits().isEmpty()) {
      SearchResult.Hit last = result.hits().get(result.hits().size() - 1);
      next =
          Cursors.encodeRelevance(
              query,
              mark,
              generation,
              new SearchQuery.After(last.value(), last.rowKey()),
              (cursor == null ? 0 : cursor.offset()) + result.hits().size(),
              result.frozen());
    }
    ObjectNode retrieval = Json.object();
    retrieval.put("mode", mode.wireName());
    if (pending > 0) {
      // Semantic search cannot find these yet; lexical search can.
      retrieval.put("pending_embeddings", pending);
    }
    if (cut && vector != null) {
      retrieval.put(
          "text_embedded",
          "the first " + MAX_EMBEDDED_QUERY_CHARS + " characters of the text were embedded");
    }
    if (result.truncatedTerms() > 0) {
      retrieval.put(
          "text_truncated",
          "searched the first "
              + SearchIndex.MAX_QUERY_TERMS
              + " distinct words of the text; "
              + result.truncatedTerms()
              + " more were left out");
    }
    if (!hasText) {
      return new RetrieveResult(records, result.total(), next);
    }
    return new RetrieveResult(
        records, result.total(), next, byRelevance ? scores : null, retrieval);
  }

  private static Long micros(Instant instant) {
    return instant == null ? null : Timestamps.toMicros(instant);
  }

  @Override
  public DeleteResult delete(Caller caller, DeleteRequest request) {
    return storage.inShortTransaction(
        tx -> delete(tx, caller, request.scope(), request.id(), request.expectedVersion()));
  }

  private DeleteResult delete(
      StorageTransaction tx, Caller caller, Scope scope, String id, Long expectedVersion) {
    Authorization.requireWrite(caller, scope);
    StoredRecord live =
        tx.findForUpdate(scope, id)
            .filter(r -> !r.deleted())
            .orElseThrow(() -> notFound(scope, id));
    Authorization.requireModifiable(caller, live);
    if (expectedVersion != null && live.version() != expectedVersion) {
      throw versionConflict(expectedVersion, scope, id, live.version());
    }
    String writer = caller.principal().orElse(caller.origin());
    if (!plugins.keepsHistory()) {
      tx.remove(scope, id, new WriteLog(Change.Kind.DELETED, writer, false));
      return new DeleteResult(false);
    }
    long now = Timestamps.toMicros(clock.instant());
    tx.put(
        StoredRecord.toWrite(
            live.scope(),
            live.id(),
            live.type(),
            live.version(),
            live.createdMicros(),
            now,
            true,
            live.document(),
            // A hidden row matches no query, so it keeps no index entries.
            RecordIndex.NONE),
        new WriteLog(Change.Kind.DELETED, writer, true));
    return new DeleteResult(true);
  }

  /** Runs profile work in one transaction, with the engine's own writes. */
  <T> T atomically(Caller caller, Function<RecordWriter, T> work) {
    return storage.inTransaction(tx -> work.apply(writer(tx, caller)));
  }

  /** The engine's writes inside {@code tx}, on behalf of {@code caller}. */
  private RecordWriter writer(StorageTransaction tx, Caller caller) {
    return new RecordWriter() {
      @Override
      public StoreResult store(JsonNode record) {
        return store(record, Change.Kind.STORED);
      }

      @Override
      public StoreResult store(JsonNode record, Change.Kind kind) {
        return apply(tx, caller, prepare(record), null, false, kind);
      }

      @Override
      public DeleteResult delete(Scope scope, String id) {
        return Engine.this.delete(tx, caller, scope, id, null);
      }

      @Override
      public Optional<MemoryRecord> read(Scope scope, String id) {
        if (!caller.grants().canRead(scope)) {
          return Optional.empty();
        }
        return tx.findForUpdate(scope, id)
            .filter(r -> !r.deleted())
            .map(r -> MemoryRecord.ofStoredText(r.document()));
      }

      @Override
      public StorageTransaction storage() {
        return Authorization.guard(caller, tx);
      }
    };
  }

  /**
   * A retrieve answered from the given records rather than the store (past states), as {@code
   * caller} may see them: matched in the form the caller sees, so that what clearance withholds
   * neither matches nor ranks, as in a live retrieve.
   */
  RetrieveResult retrieveAmong(Caller caller, List<MemoryRecord> candidates, RetrieveQuery query) {
    Authorization.requireRetrieve(caller, query);
    List<MemoryRecord> visible = new ArrayList<>(candidates.size());
    for (MemoryRecord candidate : candidates) {
      MemoryRecord seen = Authorization.visible(caller, candidate);
      if (seen != null) {
        visible.add(seen);
      }
    }
    return new QueryMatcher(query).page(visible);
  }

  @Override
  public ContentReference putContent(Caller caller, PutContentRequest request) {
    Authorization.requireContentWrite(caller);
    byte[] bytes = request.bytes();
    if (bytes.length > validator.maxRecordBytes()) {
      throw new SgmException(
          ErrorCode.TOO_LARGE,
          "content: is "
              + bytes.length
              + " bytes; the limit is "
              + validator.maxRecordBytes()
              + " bytes",
          List.of(
              new FieldError("content", "larger than " + validator.maxRecordBytes() + " bytes")));
    }
    ContentReference reference =
        new ContentReference(
            RecordIndexer.sha256(bytes), request.text() ? "utf-8" : "binary", bytes.length);
    storage.putContent(reference, bytes, caller.principal().orElse(null));
    return reference;
  }

  /** {@code tokens.create}: a new access token, for the owner. */
  JsonNode createToken(Caller caller, JsonNode json) {
    Authorization.requireOwner(caller, "create tokens");
    RequestReader request = RequestReader.of(json);
    String principal = request.requireString("principal");
    List<Grants.Grant> grants = new ArrayList<>();
    List<String> grantTexts = request.optionalStringList("grants");
    if (grantTexts.isEmpty()) {
      throw SgmException.invalidRequest(
          "grants", "a token needs at least one grant, e.g. project=alpha:read");
    }
    for (int i = 0; i < grantTexts.size(); i++) {
      try {
        grants.add(Grants.Grant.parse(grantTexts.get(i)));
      } catch (SgmException e) {
        throw SgmException.invalidRequest("grants[" + i + "]", e.getMessage());
      }
    }
    List<String> agents = request.optionalStringList("agents");
    String clearance = request.optionalString("clearance");
    String expires = request.optionalString("expires_in");
    request.finish();
    AccessTokens.Created created =
        tokens.create(
            principal,
            grants,
            new java.util.LinkedHashSet<>(agents),
            clearance == null
                ? Sensitivity.SECRET
                : Sensitivity.fromWireName(clearance, "clearance"),
            expires == null ? null : AccessTokens.lifetime(expires, "expires_in"));
    ObjectNode answer = created.description().deepCopy();
    answer.put("token", created.token());
    return answer;
  }

  /** {@code tokens.list}: every token, without secrets, for the owner. */
  JsonNode listTokens(Caller caller, JsonNode json) {
    Authorization.requireOwner(caller, "list tokens");
    RequestReader.of(json).finish();
    ObjectNode answer = Json.object();
    tokens.list().forEach(answer.putArray("tokens")::add);
    return answer;
  }

  /** {@code tokens.revoke}: revokes a token, for the owner. */
  JsonNode revokeToken(Caller caller, JsonNode json) {
    Authorization.requireOwner(caller, "revoke tokens");
    RequestReader request = RequestReader.of(json);
    String id = request.requireString("id");
    request.finish();
    tokens.revoke(id);
    return Json.object().put("id", id).put("revoked", true);
  }

  /** The {@code scopes} operation: the scopes the caller may read that hold records, counted. */
  JsonNode scopes(Caller caller, JsonNode request) {
    return census.run(caller, request);
  }

  @Override
  public ChangesResult changes(Caller caller, ChangesRequest request) {
    Authorization.requireChanges(caller, request);
    return feed.changes(caller, request);
  }

  @Override
  public ChangeStream watch(Caller caller, ChangesRequest request) {
    Authorization.requireChanges(caller, request);
    ChangeStream stream = notifier.watch(caller, request);
    return caller.credential().isEmpty()
        ? stream
        : new CredentialCheckedStream(stream, () -> tokens.stillValid(caller.credential().get()));
  }

  @Override
  public Optional<StoredContent> getContent(Caller caller, String hash) {
    Authorization.requireContentRead(caller);
    return storage.getContent(hash);
  }

  @Override
  public JsonNode invoke(Caller caller, String operation, JsonNode request) {
    if (!tokens.enabled()) {
      return run(caller, operation, request);
    }
    String outcome = "ok";
    try {
      return run(caller, operation, request);
    } catch (SgmException e) {
      outcome = e.code().wireName();
      throw e;
    } catch (RuntimeException e) {
      outcome = ErrorCode.INTERNAL.wireName();
      throw e;
    } finally {
      audit.record(clock.instant(), caller, operation, request, outcome);
    }
  }

  private JsonNode run(Caller caller, String operation, JsonNode request) {
    CoreOperations.CoreOperation core = CoreOperations.named(operation);
    if (core != null) {
      return core.body().run(this, caller, request);
    }
    ProfileOperation op = plugins.operation(operation);
    if (op == null) {
      throw new SgmException(
          ErrorCode.UNSUPPORTED_CAPABILITY,
          "operation '" + operation + "' is not offered here; available: " + operations());
    }
    if (!caller.grants().isOwner() && request != null && request.path("scope").isObject()) {
      Scope scope = Scope.fromJson(request.get("scope"), "scope", ErrorCode.INVALID_REQUEST);
      Authorization.requireRead(caller, scope);
      if (!op.effects().readOnly() && request.path("id").isTextual()) {
        // A write to a record above the caller's clearance is forbidden before the operation
        // looks at the record's state, which would otherwise show through its answer.
        Authorization.requireModifiable(
            caller, storage.find(scope, request.get("id").textValue()).orElse(null));
      }
    }
    return Authorization.visibleResponse(caller, op.invoke(caller, request));
  }

  @Override
  public Caller authenticate(String origin, String authorization, String clientAddress) {
    return tokens.authenticate(origin, authorization, clientAddress);
  }

  @Override
  public boolean authenticates() {
    return tokens.enabled();
  }

  @Override
  public List<String> operations() {
    List<String> all = new ArrayList<>();
    CoreOperations.ALL.forEach(op -> all.add(op.descriptor().name()));
    all.addAll(plugins.operationNames());
    return List.copyOf(all);
  }
}
