package dev.sgm.tck.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.RetrieveQuery.OrderBy;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.RecordIndex.FieldValue;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoragePage;
import dev.sgm.api.spi.StorageQuery;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.WriteLog;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The storage rules of live rows and queries: rows by row key, scanned and counted, and read with a
 * committed sequence no older than the call; queries filtered by scope mode, tags and fields,
 * ordered, paged at a mark, and kept within the readable scopes.
 *
 * <p>An area of {@link StorageTck}, which is how to run it: the areas extend one another, so only
 * the suite extends this class.
 */
public abstract class StorageQueriesTck extends StorageChangeLogTck {
  StorageQueriesTck() {}

  // ---- live rows -----------------------------------------------------------------------------

  @Test
  @DisplayName("live, scanLive and countLive see the live rows by row key")
  @Requirement(rule = "storage: live rows")
  void live_byRowKeyScanAndCount() {
    List<Long> keys = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      put(row(scope("s" + i), "r" + i, 1, "c"));
      keys.add(storage.find(scope("s" + i), "r" + i).orElseThrow().rowKey());
    }
    assertEquals(5, storage.countLive());
    List<Long> found =
        new ArrayList<>(
            storage.live(List.of(keys.get(3), keys.get(1), 999_999_999L)).stream()
                .map(StoredRecord::rowKey)
                .toList());
    Collections.sort(found);
    assertEquals(List.of(keys.get(1), keys.get(3)), found, "missing keys are left out");
    assertEquals(List.of(), storage.live(List.of()));
    // However many keys it is asked at once (H2 refuses an array of more than 65,536 values).
    List<Long> many = new ArrayList<>();
    for (long k = 1; many.size() < 100_000; k++) {
      many.add(Long.MAX_VALUE - k); // no row has such a key
    }
    many.add(50_000, keys.get(4));
    many.add(keys.get(0));
    List<Long> amongMany =
        new ArrayList<>(storage.live(many).stream().map(StoredRecord::rowKey).toList());
    Collections.sort(amongMany);
    assertEquals(
        List.of(keys.get(0), keys.get(4)).stream().sorted().toList(),
        amongMany,
        "100,000 keys at once: the live ones among them");
    List<Long> scanned = new ArrayList<>();
    long after = 0;
    for (List<StoredRecord> page = storage.scanLive(after, 2);
        !page.isEmpty();
        page = storage.scanLive(after, 2)) {
      assertTrue(page.size() <= 2);
      for (StoredRecord r : page) {
        assertTrue(r.rowKey() > after, "row-key order");
        after = r.rowKey();
        scanned.add(r.rowKey());
      }
    }
    List<Long> sorted = new ArrayList<>(keys);
    Collections.sort(sorted);
    assertEquals(sorted, scanned);
    StoredRecord one = storage.live(List.of(keys.get(2))).get(0);
    assertEquals(scope("s2"), one.scope());
    assertEquals("r2", one.id());
    assertEquals(doc(scope("s2"), "r2", 1, "c"), one.document());
  }

  @Test
  @DisplayName("liveAndCommitted reads the live rows with a committed sequence no older than it")
  @Requirement(rule = "storage: live rows")
  void live_withTheCommittedSequence() {
    List<Long> keys = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      put(row(scope("w" + i), "r" + i, 1, "c"));
      keys.add(storage.find(scope("w" + i), "r" + i).orElseThrow().rowKey());
    }
    Scope hiddenScope = scope("w-hidden");
    long micros = now();
    put(
        StoredRecord.toWrite(
            hiddenScope,
            "gone",
            "note",
            2,
            micros,
            micros,
            true,
            doc(hiddenScope, "gone", 2, "gone"),
            RecordIndex.NONE),
        new WriteLog(Change.Kind.DELETED, "alice", false));
    long hidden = storage.find(hiddenScope, "gone").orElseThrow().rowKey();
    long before = storage.committedSequence();
    Storage.LiveRows read =
        storage.liveAndCommitted(List.of(keys.get(2), keys.get(0), hidden, 999_999_999L));
    long after = storage.committedSequence();
    assertTrue(
        read.committedSequence() >= before && read.committedSequence() <= after,
        "the sequence is read during the call: "
            + read.committedSequence()
            + " not within ["
            + before
            + ", "
            + after
            + "]");
    assertEquals(2, read.rows().size(), "each live row once; hidden and missing keys left out");
    Map<Long, StoredRecord> byKey = new HashMap<>();
    read.rows().forEach(r -> byKey.put(r.rowKey(), r));
    assertEquals(Set.of(keys.get(0), keys.get(2)), byKey.keySet());
    assertEquals(doc(scope("w2"), "r2", 1, "c"), byKey.get(keys.get(2)).document());
    assertEquals(scope("w0"), byKey.get(keys.get(0)).scope());
    put(row(scope("w3"), "r3", 1, "c"));
    long afterWrite = storage.committedSequence();
    assertTrue(afterWrite > before, "a write moves the committed sequence");
    Storage.LiveRows none = storage.liveAndCommitted(List.of());
    assertEquals(List.of(), none.rows());
    assertTrue(
        none.committedSequence() >= afterWrite
            && none.committedSequence() <= storage.committedSequence(),
        "with no row asked for, the sequence still includes the last write");
    Storage.LiveRows onlyHidden = storage.liveAndCommitted(List.of(hidden));
    assertEquals(List.of(), onlyHidden.rows());
    assertTrue(
        onlyHidden.committedSequence() >= afterWrite
            && onlyHidden.committedSequence() <= storage.committedSequence());
  }

  // ---- queries -------------------------------------------------------------------------------

  @Test
  @DisplayName("a query filters by scope mode, tags and fields, orders by time and pages")
  @Requirement(rule = "storage: query")
  void query_filtersOrdersAndPages() {
    Scope project = scope("q");
    Scope session = Scope.of("project", "q", "session", "s1");
    Scope sibling = scope("q2");
    RecordIndex red =
        new RecordIndex(List.of("red"), List.of(new FieldValue("data.state", "open")));
    RecordIndex blue =
        new RecordIndex(List.of("blue"), List.of(new FieldValue("data.state", "done")));
    put(row(project, "p1", 1, "c", red));
    put(row(project, "p2", 1, "c", blue));
    put(row(session, "s1", 1, "c", red));
    put(row(sibling, "x1", 1, "c", red));
    put(row(project, "p3", 1, "c", red));

    StoragePage exact = storage.query(query(project, ScopeMode.EXACT, 10));
    assertEquals(List.of("p3", "p2", "p1"), ids(exact), "newest first");
    assertEquals(3, exact.total());
    assertEquals(
        List.of("p3", "s1", "p2", "p1"),
        ids(storage.query(query(project, ScopeMode.DESCENDANTS, 10))));
    assertEquals(
        List.of("p3", "p2", "p1"),
        ids(storage.query(query(session, ScopeMode.ANCESTORS, 10))).stream()
            .filter(id -> id.startsWith("p"))
            .toList());
    StorageQuery tagged =
        StorageQuery.of(project, ScopeMode.DESCENDANTS, 10)
            .tags(List.of("red"), false)
            .filters(List.of(new FieldValue("data.state", "open")))
            .orderBy(OrderBy.UPDATED_AT, true)
            .build();
    assertEquals(List.of("p1", "s1", "p3"), ids(storage.query(tagged)), "oldest first");

    StorageQuery oldestFirst =
        StorageQuery.of(project, ScopeMode.EXACT, 2).orderBy(OrderBy.CREATED_AT, true).build();
    StoragePage first = storage.query(oldestFirst);
    assertEquals(List.of("p1", "p2"), ids(first));
    assertEquals(3, first.total(), "total counts every match, not the page");
    put(row(project, "p4", 1, "c"));
    StoragePage.Row last = first.rows().get(1);
    StorageQuery second =
        StorageQuery.of(project, ScopeMode.EXACT, 2)
            .orderBy(OrderBy.CREATED_AT, true)
            .after(last.position(), first.mark())
            .build();
    StoragePage rest = storage.query(second);
    assertEquals(List.of("p3"), ids(rest), "a row created after the mark is left out");
    assertEquals(3, rest.total(), "counted at the mark");
  }

  @Test
  @DisplayName(
      "a query within readable scopes matches, counts and pages only the rows of those scopes")
  @Requirement(rule = "storage: query within")
  void query_withinReadableScopes() {
    Scope project = scope("w");
    Scope mine = Scope.of("project", "w", "session", "mine");
    Scope deeper = Scope.of("project", "w", "session", "mine", "task", "t1");
    Scope other = Scope.of("project", "w", "session", "other");
    Scope alsoMine = Scope.of("project", "w", "team", "red");
    RecordIndex red =
        new RecordIndex(List.of("red"), List.of(new FieldValue("data.state", "open")));
    put(row(project, "p1", 1, "c", red));
    for (int i = 0; i < 5; i++) {
      put(row(mine, "m" + i, 1, "c", red));
      put(row(other, "o" + i, 1, "c", red));
    }
    put(row(deeper, "d1", 1, "c", red));
    put(row(alsoMine, "r1", 1, "c", red));

    List<Scope> readable = List.of(mine, alsoMine);
    StoragePage all = storage.query(within(project, ScopeMode.DESCENDANTS, readable, 100, null));
    assertEquals(
        List.of("d1", "m0", "m1", "m2", "m3", "m4", "r1"),
        ids(all).stream().sorted().toList(),
        "the readable scopes and the narrower ones, nothing else");
    assertEquals(7, all.total(), "total counts the readable rows only");
    assertEquals(
        List.of("m0", "m1", "m2", "m3", "m4", "d1"),
        ids(storage.query(within(deeper, ScopeMode.ANCESTORS, List.of(mine), 100, null))),
        "an ancestor query keeps to the readable ancestors");

    List<String> paged = new ArrayList<>();
    StoragePage page = storage.query(within(project, ScopeMode.DESCENDANTS, readable, 3, null));
    long mark = page.mark();
    while (true) {
      paged.addAll(ids(page));
      assertEquals(7, page.total());
      if (page.rows().size() < 3) {
        break;
      }
      put(row(mine, "new" + paged.size(), 1, "c", red));
      put(row(other, "newer" + paged.size(), 1, "c", red));
      StorageQuery.Position last = page.rows().get(page.rows().size() - 1).position();
      page =
          storage.query(
              StorageQuery.of(project, ScopeMode.DESCENDANTS, 3)
                  .orderBy(OrderBy.CREATED_AT, true)
                  .after(last, mark)
                  .within(readable)
                  .build());
    }
    assertEquals(
        List.of("m0", "m1", "m2", "m3", "m4", "d1", "r1"),
        paged,
        "keyset pages in creation order: no repeat, no skip, nothing created later");

    StoragePage filtered =
        storage.query(
            StorageQuery.of(project, ScopeMode.LINEAGE, 100)
                .tags(List.of("red"), false)
                .filters(List.of(new FieldValue("data.state", "open")))
                .within(List.of(deeper))
                .build());
    assertEquals(List.of("d1"), ids(filtered), "tags and fields within the readable scopes");
    assertEquals(
        List.of(),
        ids(storage.query(within(deeper, ScopeMode.ANCESTORS, List.of(other), 100, null))));
    StoragePage none = storage.query(within(project, ScopeMode.DESCENDANTS, List.of(), 100, null));
    assertEquals(List.of(), ids(none), "no readable scope: nothing");
    assertEquals(0, none.total());
  }

  private static StorageQuery within(
      Scope scope, ScopeMode mode, List<Scope> readable, int limit, StorageQuery.Position after) {
    return StorageQuery.of(scope, mode, limit)
        .orderBy(OrderBy.CREATED_AT, true)
        .after(after, -1)
        .within(readable)
        .build();
  }
}
