package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.BatchStoreResult;
import dev.sgm.api.Caller;
import dev.sgm.api.ContentReference;
import dev.sgm.api.DeleteRequest;
import dev.sgm.api.DeleteResult;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Json;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.ProtocolVersion;
import dev.sgm.api.PutContentRequest;
import dev.sgm.api.RawNumberNode;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.StoreResult;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.RecordWriter;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.WriteLog;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The engine's writes: store, store_batch, delete and put_content, and the writer a profile gets
 * inside a transaction. Every write of a record goes through {@link #apply}, so that validation,
 * authorization, server-set fields, versions and conflicts are decided in one place whichever way
 * the write came in.
 */
final class RecordWrites {
  private final Storage storage;
  private final RecordValidator validator;
  private final SecretPolicy secrets;
  private final RecordIndexer indexer;
  private final ActivePlugins plugins;
  private final Clock clock;

  RecordWrites(
      Storage storage,
      RecordValidator validator,
      SecretPolicy secrets,
      RecordIndexer indexer,
      ActivePlugins plugins,
      Clock clock) {
    this.storage = storage;
    this.validator = validator;
    this.secrets = secrets;
    this.indexer = indexer;
    this.plugins = plugins;
    this.clock = clock;
  }

  StoreResult store(Caller caller, StoreRequest request) {
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
                Change.Kind.STORED,
                null));
  }

  BatchStoreResult storeBatch(Caller caller, BatchStoreRequest request) {
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
                  apply(
                      tx,
                      caller,
                      records.get(i),
                      null,
                      request.ifAbsent(),
                      Change.Kind.STORED,
                      null);
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
   * derives, with the credentials in it handled as the secrets policy says: before anything is
   * stored, indexed, embedded, audited or sent to a watcher.
   */
  private ObjectNode prepare(JsonNode json) {
    ObjectNode record = validated(json);
    secrets.apply(record);
    return record;
  }

  /** A private copy of a record that passed the core's rules and its profile's, completed. */
  private ObjectNode validated(JsonNode json) {
    ObjectNode record = validator.validate(json).deepCopy();
    Profile owner = plugins.ownerOf(record.path("type").asText());
    if (owner != null && record.has("data")) {
      owner.validate(record);
      owner.complete(record);
    }
    return record;
  }

  /**
   * Stores {@code stored}, a record as it is stored at {@code version}, with its credentials
   * replaced, as its next version, whatever {@code secrets.on-detect} says: how what was stored
   * before (or while the policy allowed it) is cleaned. Empty when it holds none; {@code conflict}
   * when it changed since it was read.
   */
  Optional<StoreResult> storeRedacted(Caller caller, JsonNode stored, long version) {
    ObjectNode record = validated(stored);
    if (secrets.redact(record).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        storage.inShortTransaction(
            tx -> apply(tx, caller, record, version, false, Change.Kind.STORED, null)));
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

  /**
   * Stores one validated record in {@code tx}: checks the caller's rights and the expected state,
   * fills the server-set fields, and leaves an unchanged record as it is (same version, no log
   * entry). {@code actingAgent}, when not null, is who writes it absent a principal ({@link
   * RecordWriter#as}).
   */
  private StoreResult apply(
      StorageTransaction tx,
      Caller caller,
      ObjectNode validated,
      Long expectedVersion,
      boolean ifAbsent,
      Change.Kind kind,
      String actingAgent) {
    // A fresh copy per attempt: storage may run this work again after a concurrent-write retry.
    ObjectNode record = validated.deepCopy();
    Scope scope = Scope.fromJson(record.get("scope"), "scope", ErrorCode.INVALID_RECORD);
    String id = record.get("id").textValue();
    Optional<StoredRecord> existing = tx.findForUpdate(scope, id);
    StoredRecord live = existing.filter(r -> !r.deleted()).orElse(null);
    Authorization.requireStore(caller, scope, record, live);
    requireHeldContent(caller, record);
    requireExpected(scope, id, live, expectedVersion, ifAbsent);
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
        new WriteLog(kind, writerName(caller, actingAgent, record), plugins.keepsHistory()));
    MemoryRecord stored = MemoryRecord.of(record);
    Profile owner = plugins.ownerOf(stored.type());
    if (owner != null) {
      owner.afterStore(writer(tx, caller, actingAgent), stored);
    }
    return new StoreResult(stored, live == null, true);
  }

  /** {@code conflict} unless the live record is as the writer expects it (absent, or a version). */
  private static void requireExpected(
      Scope scope, String id, StoredRecord live, Long expectedVersion, boolean ifAbsent) {
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
  }

  /**
   * Who wrote a version: the caller's principal; else the agent the operation acts for, when it
   * names one; else the record's {@code provenance.agent}.
   */
  private static String writerName(Caller caller, String actingAgent, JsonNode record) {
    return caller
        .principal()
        .orElse(
            actingAgent != null ? actingAgent : record.path("provenance").path("agent").asText(""));
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

  DeleteResult delete(Caller caller, DeleteRequest request) {
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
    return storage.inTransaction(tx -> work.apply(writer(tx, caller, null)));
  }

  /**
   * The engine's writes inside {@code tx}, on behalf of {@code caller}, written as {@code
   * actingAgent} absent a principal when not null ({@link RecordWriter#as}).
   */
  private RecordWriter writer(StorageTransaction tx, Caller caller, String actingAgent) {
    return new RecordWriter() {
      @Override
      public StoreResult store(JsonNode record) {
        return store(record, Change.Kind.STORED);
      }

      @Override
      public StoreResult store(JsonNode record, Change.Kind kind) {
        return apply(tx, caller, prepare(record), null, false, kind, actingAgent);
      }

      @Override
      public RecordWriter as(String agent) {
        RecordValidator.requireAgentName(agent, "agent");
        return writer(tx, caller, agent);
      }

      @Override
      public DeleteResult delete(Scope scope, String id) {
        return RecordWrites.this.delete(tx, caller, scope, id, null);
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

  /** Whether content put with this request is scanned: text is, unless the policy allows all. */
  boolean scansForSecrets(PutContentRequest request) {
    return request.text() && secrets.action() != SecretPolicy.Action.ALLOW;
  }

  ContentReference putContent(Caller caller, PutContentRequest request) {
    Authorization.requireContentWrite(caller);
    // Text is scanned for credentials like a record's; binary content is not text and is not.
    byte[] bytes = request.text() ? secrets.applyToText(request.bytes()) : request.bytes();
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

  static SgmException notFound(Scope scope, String id) {
    return new SgmException(ErrorCode.NOT_FOUND, "no record " + scope.qualify(id));
  }
}
