package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's §3 "Relevance" rules on searches beside writes: deleted records never come back,
 * updated ones are found by their new words only, paging neither repeats nor skips while others
 * store, and a record is found as soon as its store returns.
 */
public abstract class RelevanceWritesTck extends RelevanceScoresTck {
  private void delete(ObjectNode scope, String id) {
    ObjectNode request = Json.object();
    request.set("scope", scope.deepCopy());
    request.put("id", id);
    call("delete", request);
  }

  /** A word no other record of any run contains. */
  private static String uniqueWord() {
    return "zq" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
  }

  @Test
  @DisplayName("§3 a deleted record never comes back from text search, also after updates")
  @Requirement(rule = "§3 relevance")
  void relevance_deletedRecordsNeverComeBack() {
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "gone", "The staging password rotates weekly"),
            note(scope, "kept", "The staging cluster rotates its logs"),
            note(scope, "other", "Lunch is at noon")));
    store(note(scope, "gone", "The staging password rotates monthly"));
    delete(scope, "gone");
    // Writes after the delete, to the survivors and new records, must not bring it back.
    store(note(scope, "kept", "The staging cluster rotates its logs nightly"));
    storeAll(List.of(note(scope, "new", "A new staging password vault is planned")));
    // One word a query, each in the deleted record's first or last version.
    Map<String, Set<String>> live =
        Map.of(
            "staging", Set.of("kept", "new"),
            "password", Set.of("new"),
            "weekly", Set.of(),
            "monthly", Set.of());
    for (String mode : retrieval().modes()) {
      for (Map.Entry<String, Set<String>> word : live.entrySet()) {
        JsonNode result = search(scope, word.getKey(), mode);
        assertFalse(ids(result).contains("gone"), mode + ", " + word.getKey() + ": " + ids(result));
        if (mode.equals(TEXT)) {
          assertEquals(word.getValue(), new HashSet<>(ids(result)), mode + ", " + word.getKey());
          assertEquals(
              word.getValue().size(),
              result.path("total").asLong(),
              mode + ", " + word + ": total");
        }
      }
    }
    // Stored again, it is a new record, found by its new words only.
    store(note(scope, "gone", "Coffee beans are ordered on Mondays"));
    assertEquals(List.of("gone"), ids(search(scope, "coffee", TEXT)));
    assertEquals(0, search(scope, "weekly", TEXT).path("total").asLong());
    assertEquals(0, search(scope, "monthly", TEXT).path("total").asLong());
  }

  @Test
  @DisplayName("§3 an updated record is found by its new words and not by its old ones")
  @Requirement(rule = "§3 relevance")
  void relevance_updatedRecordsAreFoundByTheirNewWords() {
    ObjectNode scope = scope("project", unique("rel"));
    ObjectNode queue = note(scope, "queue", "The message queue is RabbitMQ");
    queue.put("title", "Queue choice: RabbitMQ");
    queue.putArray("tags").add("rabbitmq");
    storeAll(List.of(queue, note(scope, "other", "The message bus is documented")));
    ObjectNode updated = note(scope, "queue", "The message queue is Kafka");
    updated.put("title", "Queue choice: Kafka");
    updated.putArray("tags").add("kafka");
    store(updated);

    JsonNode old = search(scope, "rabbitmq", TEXT);
    assertEquals(List.of(), ids(old), "the old words find nothing");
    assertEquals(0, old.path("total").asLong());
    JsonNode found = search(scope, "kafka", TEXT);
    assertEquals(List.of("queue"), ids(found), "the new words find it");
    assertEquals(
        "The message queue is Kafka", found.path("records").get(0).path("content").asText());
    assertEquals(2, found.path("records").get(0).path("version").asLong());
  }

  // ---- paging

  @Test
  @DisplayName("§3 relevance paging neither repeats nor skips while others store records")
  @Requirement(rule = "§3 relevance")
  void relevance_pagingIsStableUnderConcurrentWrites() {
    for (String mode : retrieval().modes()) {
      ObjectNode scope = scope("project", unique("rel"));
      List<ObjectNode> records = new ArrayList<>();
      for (int i = 0; i < 30; i++) {
        records.add(note(scope, "old-" + i, "alpha ".repeat(1 + i % 5) + "filler text " + i));
      }
      storeAll(records);
      Set<String> before = new HashSet<>();
      records.forEach(r -> before.add(r.path("id").asText()));

      ObjectNode query = query(scope, "alpha", mode);
      query.put("limit", 7);
      List<String> seen = new ArrayList<>();
      for (int pages = 0; pages < 50; pages++) {
        JsonNode page = retrieve(query);
        seen.addAll(ids(page));
        if (!page.hasNonNull("next_cursor")) {
          break;
        }
        query.put("cursor", page.path("next_cursor").asText());
        // Between pages, others store records that would rank first, and records that match
        // nothing.
        List<ObjectNode> writes = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          writes.add(note(scope, "new-" + pages + "-" + i, "alpha alpha alpha alpha alpha"));
          writes.add(note(scope, "unrelated-" + pages + "-" + i, "bravo charlie delta"));
        }
        storeAllNow(writes);
      }
      assertEquals(seen.size(), new HashSet<>(seen).size(), mode + ": no repeats: " + seen);
      Set<String> missing = new HashSet<>(before);
      missing.removeAll(seen);
      assertEquals(Set.of(), missing, mode + ": no record that existed at the start is skipped");
    }
  }

  // ---- read-your-writes

  @Test
  @DisplayName("§3 a record is found by text as soon as its store returns")
  @Requirement(rule = "§3 relevance")
  void relevance_readYourWrites() {
    ObjectNode scope = scope("project", unique("rel"));
    Set<String> modes = new HashSet<>(List.of(TEXT, retrieval().defaultMode()));
    for (int i = 0; i < 50; i++) {
      String word = uniqueWord();
      store(note(scope, "r" + i, "Remember the word " + word + " for later"));
      for (String mode : modes) {
        assertTrue(
            ids(search(scope, word, mode)).contains("r" + i),
            mode + ": store " + i + " is found right after it returned");
      }
    }
    String previous = null;
    for (int i = 0; i < 20; i++) {
      String word = uniqueWord();
      store(note(scope, "moving", "Now the word is " + word));
      assertEquals(List.of("moving"), ids(search(scope, word, TEXT)), "update " + i);
      if (previous != null) {
        assertEquals(0, search(scope, previous, TEXT).path("total").asLong(), "old word " + i);
      }
      previous = word;
    }
  }
}
