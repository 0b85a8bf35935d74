package dev.sgm.core;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ContentReference;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A storage whose answers the engine does not take on trust: every row a query returns must lie in
 * the queried scope under the query's scope mode ({@link dev.sgm.api.ScopeMode#covers}), and a row
 * found by (scope, id) must have that scope. A row outside is dropped and logged, so that a storage
 * plugin's mistake cannot leak one scope's records into another's answers.
 */
final class ScopeCheckedStorage implements Storage {
  private static final System.Logger LOG = System.getLogger(ScopeCheckedStorage.class.getName());

  private final Storage storage;

  ScopeCheckedStorage(Storage storage) {
    this.storage = storage;
  }

  @Override
  public <T> T inTransaction(Function<StorageTransaction, T> work) {
    return storage.inTransaction(work);
  }

  @Override
  public <T> T inShortTransaction(Function<StorageTransaction, T> work) {
    return storage.inShortTransaction(work);
  }

  @Override
  public Optional<StoredRecord> find(Scope scope, String id) {
    Optional<StoredRecord> found = storage.find(scope, id);
    if (found.isPresent() && !found.get().scope().equals(scope)) {
      leaked(scope, found.get().scope(), id);
      return Optional.empty();
    }
    return found;
  }

  @Override
  public StoragePage query(StorageQuery query) {
    StoragePage page = storage.query(query);
    List<StoragePage.Row> kept = null;
    for (int i = 0; i < page.rows().size(); i++) {
      StoragePage.Row row = page.rows().get(i);
      Scope scope = scopeOf(row.document());
      boolean covered =
          scope != null
              && query.scopeMode().covers(query.scope(), scope)
              && query.withinReadable(scope);
      if (!covered && kept == null) {
        kept = new ArrayList<>(page.rows().subList(0, i));
      }
      if (!covered) {
        leaked(query.scope(), scope, "(a " + query.scopeMode().wireName() + " query)");
      } else if (kept != null) {
        kept.add(row);
      }
    }
    return kept == null ? page : new StoragePage(kept, page.total(), page.mark());
  }

  private void leaked(Scope asked, Scope returned, String what) {
    LOG.log(
        System.Logger.Level.ERROR,
        "storage {0} returned a row of scope {1} for {2} in scope {3}; dropped",
        storage.describe(),
        returned == null ? "(unreadable)" : returned.canonical(),
        what,
        asked.canonical());
  }

  /** The scope of a stored document, read without building the whole tree; null if unreadable. */
  static Scope scopeOf(String document) {
    try (JsonParser parser = Json.mapper().getFactory().createParser(document)) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName();
        JsonToken value = parser.nextToken();
        if (field.equals("scope") && value == JsonToken.START_OBJECT) {
          ObjectNode scope = Json.object();
          while (parser.nextToken() == JsonToken.FIELD_NAME) {
            String key = parser.currentName();
            parser.nextToken();
            scope.put(key, parser.getValueAsString());
          }
          return Scope.fromJson(scope, "scope", ErrorCode.INTERNAL);
        }
        parser.skipChildren();
      }
      return null;
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  // What derived state follows (the change log, rows by key for rebuilds) has no query scope to
  // check against; the engine checks the scope of each row it answers a text query with.

  @Override
  public long committedSequence() {
    return storage.committedSequence();
  }

  @Override
  public long changesRetainedAfter() {
    return storage.changesRetainedAfter();
  }

  @Override
  public long pruneChangesBefore(long micros) {
    return storage.pruneChangesBefore(micros);
  }

  @Override
  public ChangeBatch changesAfter(long after, int limit) {
    return storage.changesAfter(after, limit);
  }

  @Override
  public List<StoredRecord> live(Collection<Long> rowKeys) {
    return storage.live(rowKeys);
  }

  @Override
  public boolean committedSequenceCostsARoundTrip() {
    return storage.committedSequenceCostsARoundTrip();
  }

  @Override
  public LiveRows liveAndCommitted(Collection<Long> rowKeys) {
    return storage.liveAndCommitted(rowKeys);
  }

  @Override
  public List<StoredRecord> scanLive(long afterRowKey, int limit) {
    return storage.scanLive(afterRowKey, limit);
  }

  @Override
  public List<StoredRecord> scanRows(long afterRowKey, int limit) {
    return storage.scanRows(afterRowKey, limit);
  }

  @Override
  public List<dev.sgm.api.spi.VersionEntry> versionsAfter(long afterSeq, int limit) {
    return storage.versionsAfter(afterSeq, limit);
  }

  @Override
  public List<dev.sgm.api.spi.SnapshotEntry> allSnapshots() {
    return storage.allSnapshots();
  }

  @Override
  public List<String> contentHashesAfter(String afterHash, int limit) {
    return storage.contentHashesAfter(afterHash, limit);
  }

  @Override
  public long countLive() {
    return storage.countLive();
  }

  @Override
  public void onCommit(Runnable listener) {
    storage.onCommit(listener);
  }

  @Override
  public String identity() {
    return storage.identity();
  }

  @Override
  public void putContent(ContentReference reference, byte[] bytes) {
    storage.putContent(reference, bytes);
  }

  @Override
  public void putContent(ContentReference reference, byte[] bytes, String holder) {
    storage.putContent(reference, bytes, holder);
  }

  @Override
  public boolean holdsContent(String hash, String holder) {
    return storage.holdsContent(hash, holder);
  }

  @Override
  public Optional<StoredContent> getContent(String hash) {
    return storage.getContent(hash);
  }

  @Override
  public void checkAvailable() {
    storage.checkAvailable();
  }

  @Override
  public Optional<dev.sgm.api.spi.TokenStore> tokens() {
    return storage.tokens();
  }

  @Override
  public String describe() {
    return storage.describe();
  }

  @Override
  public void close() {
    storage.close();
  }
}
