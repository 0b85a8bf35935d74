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
import dev.sgm.api.NearestNames;
import dev.sgm.api.ProtocolVersion;
import dev.sgm.api.PutContentRequest;
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
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordWriter;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoredRecord;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The SGM engine: the one implementation of {@link SgmService}. It decides every semantic of the
 * contract (validation, server-set fields, idempotence, versions, conflicts, scope modes, paging)
 * and leaves storage only the keeping and finding of rows. The writes ({@link RecordWrites}) and
 * the two ways of retrieving ({@link IndexedRetrieve}, {@link StorageRetrieve}) are classes of
 * their own, which the engine hands each request to.
 */
final class Engine implements SgmService {
  private final Storage storage;
  private final SearchFollower search;
  private final ChangeFeed feed;
  private final ChangeNotifier notifier;
  private final ActivePlugins plugins;
  private final Clock clock;
  private final DiscoveryDocument discovery;
  private final AccessTokens tokens;
  private final String storageName;
  private final ScopeCensus census;
  private final AuditTrail audit;
  private final RecordWrites writes;
  private final IndexedRetrieve indexed;
  private final StorageRetrieve stored;
  private final SecretSweep sweep;

  Engine(
      Storage storage,
      String storageName,
      SearchFollower search,
      ChangeFeed feed,
      ChangeNotifier notifier,
      RecordValidator validator,
      SecretPolicy secrets,
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
    this.plugins = plugins;
    this.clock = clock;
    this.discovery = discovery;
    this.writes = new RecordWrites(storage, validator, secrets, indexer, plugins, clock);
    this.indexed = new IndexedRetrieve(search);
    this.stored = new StorageRetrieve(storage);
    this.sweep = new SecretSweep(storage, writes, secrets);
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
              "records are embedded after their store returns: a search by meaning waits for"
                  + " the embeddings of the writes before it (unless more than 1000 wait; at most"
                  + " 10 s) and says how many still wait (pending_embeddings); lexical search"
                  + " finds a record at once");
    }
    json.set("index", search.describe());
    return json;
  }

  @Override
  public StoreResult store(Caller caller, StoreRequest request) {
    return writes.store(caller, request);
  }

  @Override
  public BatchStoreResult storeBatch(Caller caller, BatchStoreRequest request) {
    return writes.storeBatch(caller, request);
  }

  @Override
  public ReadResult read(Caller caller, ReadRequest request) {
    Authorization.requireRead(caller, request.scope());
    StoredRecord row =
        storage
            .find(request.scope(), request.id())
            .filter(r -> !r.deleted())
            .orElseThrow(() -> RecordWrites.notFound(request.scope(), request.id()));
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

  @Override
  public RetrieveResult retrieve(Caller caller, RetrieveQuery query) {
    Authorization.requireRetrieve(caller, query);
    List<Scope> within = Authorization.readableWithin(caller, query);
    if (within != null && within.isEmpty()) {
      return new RetrieveResult(List.of(), 0, null);
    }
    return IndexedRetrieve.answers(caller, query)
        ? indexed.retrieve(caller, query, within)
        : stored.retrieve(caller, query, within);
  }

  @Override
  public DeleteResult delete(Caller caller, DeleteRequest request) {
    return writes.delete(caller, request);
  }

  /** Runs profile work in one transaction, with the engine's own writes. */
  <T> T atomically(Caller caller, Function<RecordWriter, T> work) {
    return writes.atomically(caller, work);
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
    return writes.putContent(caller, request);
  }

  /** Whether {@code put_content} of this request goes through the credential scanner. */
  boolean scansForSecrets(PutContentRequest request) {
    return writes.scansForSecrets(request);
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

  /** {@code secrets.scan}: a page of the search for credentials already stored, for the owner. */
  JsonNode scanSecrets(Caller caller, JsonNode request) {
    return sweep.run(caller, request);
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
          "operation '"
              + operation
              + "' is not offered here"
              + didYouMean(operation)
              + "; available: "
              + operations());
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

  /** "; did you mean 'x'?" for an operation name a few edits from {@code asked}, or nothing. */
  private String didYouMean(String asked) {
    return NearestNames.didYouMean(asked, operations());
  }

  @Override
  public List<String> operations() {
    List<String> all = new ArrayList<>();
    CoreOperations.ALL.forEach(op -> all.add(op.descriptor().name()));
    all.addAll(plugins.operationNames());
    return List.copyOf(all);
  }
}
