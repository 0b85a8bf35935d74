package dev.sgm.tck.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.ContentReference;
import dev.sgm.api.Scope;
import dev.sgm.api.spi.Change;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The storage rules of the store across its life: an identity stable across opens and distinct
 * between stores, committed data that is there after a reopen, a description of where the data
 * lives, and a health check that answers while the store is open.
 *
 * <p>An area of {@link StorageTck}, which is how to run it: the areas extend one another, so only
 * the suite extends this class.
 */
public abstract class StorageLifecycleTck extends StorageContentTck {
  StorageLifecycleTck() {}

  @Test
  @DisplayName("the identity is stable across opens and differs between stores")
  @Requirement(rule = "storage: identity")
  void identity_stableAcrossOpensAndDistinct() {
    String identity = storage.identity();
    assertFalse(identity.isBlank());
    assertEquals(identity, storage.identity());
    put(row(scope("alpha"), "a", 1, "x"));
    storage.close();
    storage = reopen();
    assertEquals(identity, storage.identity(), "the same data, the same identity");
    storage.close();
    storage = createEmpty();
    assertNotEquals(identity, storage.identity(), "other data, another identity");
  }

  @Test
  @DisplayName("what was committed is there after the storage is closed and opened again")
  @Requirement(rule = "storage: durability")
  void durability_committedDataSurvivesAReopen() {
    Scope alpha = scope("alpha");
    put(row(alpha, "a", 1, "one"), stored("alice", true));
    put(row(alpha, "a", 2, "two"), stored("alice", true));
    storage.putContent(new ContentReference("ab".repeat(32), "utf-8", 3), "abc".getBytes());
    long sequence = storage.committedSequence();
    String document = storage.find(alpha, "a").orElseThrow().document();
    storage.close();
    storage = reopen();
    assertEquals(document, storage.find(alpha, "a").orElseThrow().document());
    assertEquals(sequence, storage.committedSequence(), "the sequence goes on where it was");
    assertEquals(
        2, storage.inTransaction(tx -> tx.versions(alpha, "a", Long.MAX_VALUE, 10)).size());
    assertTrue(storage.getContent("ab".repeat(32)).isPresent());
    put(row(alpha, "b", 1, "x"));
    List<Change> after = allChangesAfter(sequence);
    assertEquals(1, after.size());
    assertTrue(after.get(0).seq() > sequence, "numbers are never reused after a restart");
  }

  @Test
  @DisplayName("describe names where the data lives")
  @Requirement(rule = "storage: describe", level = Requirement.Level.SHOULD)
  void describe_namesTheStore() {
    assertFalse(storage.describe().isBlank());
    assertFalse(storage.describe().toLowerCase(java.util.Locale.ROOT).contains("password"));
  }

  @Test
  @DisplayName("a cheap health check answers while the store is open")
  @Requirement(rule = "storage: health")
  void health_answersWhileOpen() {
    storage.checkAvailable();
  }
}
