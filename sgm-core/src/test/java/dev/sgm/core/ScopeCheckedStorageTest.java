package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.ContentReference;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/** The engine drops what a storage returns outside the queried scope, whatever the storage. */
class ScopeCheckedStorageTest {
  private static StoragePage.Row row(String scope) {
    return new StoragePage.Row(
        "{\"id\":\"r\",\"type\":\"note\",\"scope\":" + scope + ",\"provenance\":{\"agent\":\"a\"}}",
        new StorageQuery.Position(0, 0));
  }

  /** A storage that answers every query with rows of three scopes, and every find wrongly. */
  private static final class Leaky implements Storage {
    @Override
    public <T> T inTransaction(Function<StorageTransaction, T> work) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Optional<StoredRecord> find(Scope scope, String id) {
      return Optional.of(
          new StoredRecord(
              Scope.of("project", "other"),
              id,
              "note",
              1,
              0,
              0,
              false,
              "{}",
              RecordIndex.NONE,
              1,
              1));
    }

    @Override
    public StoragePage query(StorageQuery query) {
      return new StoragePage(
          List.of(
              row("{\"project\":\"alpha\"}"),
              row("{\"project\":\"beta\"}"),
              row("{\"project\":\"alpha\",\"session\":\"s1\"}")),
          3,
          7);
    }

    @Override
    public void putContent(ContentReference reference, byte[] bytes) {}

    @Override
    public Optional<StoredContent> getContent(String hash) {
      return Optional.empty();
    }

    @Override
    public String describe() {
      return "leaky";
    }

    @Override
    public long committedSequence() {
      return 0;
    }

    @Override
    public ChangeBatch changesAfter(long after, int limit) {
      return new ChangeBatch(List.of(), after);
    }

    @Override
    public List<StoredRecord> live(Collection<Long> rowKeys) {
      return List.of();
    }

    @Override
    public List<StoredRecord> scanLive(long afterRowKey, int limit) {
      return List.of();
    }

    @Override
    public long countLive() {
      return 0;
    }

    @Override
    public void onCommit(Runnable listener) {}

    @Override
    public String identity() {
      return "leaky";
    }

    @Override
    public void close() {}
  }

  private static StorageQuery query(ScopeMode mode) {
    return StorageQuery.of(Scope.of("project", "alpha"), mode, 10).build();
  }

  @Test
  void rowsOutsideTheQueriedScopeAreDropped() {
    Storage checked = new ScopeCheckedStorage(new Leaky());
    assertEquals(1, checked.query(query(ScopeMode.EXACT)).rows().size());
    assertEquals(2, checked.query(query(ScopeMode.DESCENDANTS)).rows().size());
    assertEquals(1, checked.query(query(ScopeMode.ANCESTORS)).rows().size());
    assertEquals(7, checked.query(query(ScopeMode.EXACT)).mark(), "the paging mark is kept");
  }

  @Test
  void aRowFoundUnderAnotherScopeIsNotReturned() {
    assertTrue(
        new ScopeCheckedStorage(new Leaky()).find(Scope.of("project", "alpha"), "r").isEmpty());
  }

  @Test
  void aScopeIsReadFromTheDocumentWhereverItIs() {
    assertEquals(
        Scope.of("project", "p", "session", "s"),
        ScopeCheckedStorage.scopeOf(
            "{\"id\":\"x\",\"data\":{\"scope\":{\"no\":\"pe\"}},\"tags\":[\"a\"],"
                + "\"scope\":{\"project\":\"p\",\"session\":\"s\"}}"));
  }
}
