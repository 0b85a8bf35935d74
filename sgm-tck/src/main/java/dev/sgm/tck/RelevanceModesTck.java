package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's §3 "Relevance" rules on searching by meaning and on discovery's {@code retrieval}
 * object: semantic and hybrid modes, each skipped, with the reason, when discovery does not
 * advertise it, and the modes, default mode and embedding model discovery describes.
 */
public abstract class RelevanceModesTck extends RelevanceInputTck {
  /**
   * A search by meaning once the records just stored are embedded: the contract lets the semantic
   * index lag behind a store, and a response says how many records still wait ({@code
   * retrieval.pending_embeddings}). Waits as {@link #awaitEmbedded} does, then asks again while the
   * answer says records wait (for a server that gives discovery no count), at most two minutes.
   */
  private JsonNode searchWhenEmbedded(ObjectNode scope, String text, String mode) {
    awaitEmbedded(scope);
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (true) {
      JsonNode result = search(scope, text, mode);
      if (result.path("retrieval").path("pending_embeddings").asLong(0) == 0
          || System.nanoTime() > deadline
          || !waitAWhile()) {
        return result;
      }
    }
  }

  /** Sleeps a tenth of a second; false when interrupted. */
  private static boolean waitAWhile() {
    try {
      Thread.sleep(100);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Test
  @DisplayName("§3 semantic mode finds a paraphrase that shares no word with the query")
  @Requirement(rule = "§3 relevance")
  void semantic_findsAParaphrase() {
    assumeMode(SEMANTIC);
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "lunch", "Lunch is served at noon in the canteen"),
            note(scope, "db", "Persistence is handled by PostgreSQL 15"),
            note(scope, "office", "The office closes early on Fridays"),
            note(scope, "standup", "Standups start at nine sharp"),
            note(scope, "holiday", "Holiday requests go to the team lead")));
    JsonNode result = searchWhenEmbedded(scope, "which database do we use", SEMANTIC);
    assertEquals("db", first(result), "the paraphrase ranks first: " + ids(result));
  }

  @Test
  @DisplayName("§3 hybrid mode finds both a keyword-only match and a paraphrase")
  @Requirement(rule = "§3 relevance")
  void hybrid_findsKeywordAndParaphrase() {
    assumeMode(HYBRID);
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "lunch", "Lunch is served at noon in the canteen"),
            note(scope, "db", "Persistence is handled by PostgreSQL 15"),
            note(scope, "ticket", "Ticket ZX-4411 tracks the flaky login test"),
            note(scope, "office", "The office closes early on Fridays"),
            note(scope, "standup", "Standups start at nine sharp"),
            note(scope, "holiday", "Holiday requests go to the team lead")));
    List<String> found =
        ids(searchWhenEmbedded(scope, "which database do we use for ZX-4411", HYBRID));
    assertTrue(found.size() >= 2, found::toString);
    assertEquals(
        Set.of("db", "ticket"),
        new HashSet<>(found.subList(0, 2)),
        "the keyword match and the paraphrase rank first: " + found);
  }

  @Test
  @DisplayName("§3 a question about nothing stored finds nothing, with total 0, in every mode")
  @Requirement(rule = "§3 relevance")
  void everyMode_findsNothingForAQuestionAboutNothingStored() {
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "db", "Storage: PostgreSQL 16 with a connection pool of 20"),
            note(scope, "pool", "The connection pool is HikariCP"),
            note(scope, "vite", "Frontend build uses Vite and React"),
            note(scope, "ci", "CI runs on every push to main"),
            note(scope, "style", "Code style is enforced by the formatter")));
    searchWhenEmbedded(scope, "connection pool", retrieval().defaultMode());
    for (String mode : retrieval().modes()) {
      for (String question :
          List.of("kubernetes helm zebra", "What is the recipe for banana bread?")) {
        JsonNode result = search(scope, question, mode);
        assertEquals(List.of(), ids(result), mode + ": " + question);
        assertEquals(0, result.path("total").asLong(), mode + ": total for " + question);
      }
    }
  }

  @Test
  @DisplayName("§3 records that match neither by a word nor by meaning are not answers")
  @Requirement(rule = "§3 relevance")
  void everyMode_leavesOutWhatDoesNotMatch() {
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "pool", "The connection pool is HikariCP with 20 connections"),
            note(scope, "pool-size", "Raise the pool size when connections time out"),
            note(scope, "vite", "Frontend build uses Vite and React")));
    searchWhenEmbedded(scope, "connection pool", retrieval().defaultMode());
    for (String mode : retrieval().modes()) {
      JsonNode result = search(scope, "connection pool", mode);
      List<String> found = ids(result);
      assertEquals(Set.of("pool", "pool-size"), new HashSet<>(found), mode + ": " + result);
      assertEquals(found.size(), result.path("total").asLong(), mode + ": total = matches");
    }
  }

  @Test
  @DisplayName("§3 the default mode ranks the paraphrase above a record sharing a common word")
  @Requirement(rule = "§3 relevance")
  void defaultMode_ranksTheParaphraseFirst() {
    assumeMode(HYBRID);
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "vault", "We use Vault for secrets"),
            note(scope, "db", "Persistence is handled by PostgreSQL 15"),
            note(scope, "vite", "Frontend build uses Vite and React")));
    JsonNode result = searchWhenEmbedded(scope, "which database do we use", HYBRID);
    assertEquals("db", first(result), "the database first: " + ids(result));
  }

  @Test
  @DisplayName(
      "§3 min_score raises the floor of semantic and hybrid scores; out of range is refused")
  @Requirement(rule = "§3 relevance")
  void minScore_raisesTheFloor() {
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "pool", "The connection pool is HikariCP with 20 connections"),
            note(scope, "pool-size", "Raise the pool size when connections time out"),
            note(scope, "db", "Storage: PostgreSQL 16")));
    searchWhenEmbedded(scope, "connection pool", retrieval().defaultMode());
    for (String mode : List.of(SEMANTIC, HYBRID)) {
      if (!retrieval().modes().contains(mode)) {
        continue;
      }
      JsonNode all = search(scope, "connection pool", mode);
      List<Double> scores = new ArrayList<>();
      all.path("scores").forEach(score -> scores.add(score.asDouble()));
      assertFalse(scores.isEmpty(), mode + ": " + all);
      double floor = scores.get(0);
      ObjectNode raised = query(scope, "connection pool", mode);
      raised.put("min_score", floor);
      JsonNode best = retrieve(raised);
      long expected = scores.stream().filter(score -> score >= floor).count();
      assertEquals(expected, best.path("records").size(), mode + ": " + best);
      assertEquals(expected, best.path("total").asLong(), mode + ": total");
      for (double bad : new double[] {-0.1, 1.5}) {
        ObjectNode out = query(scope, "connection pool", mode);
        out.put("min_score", bad);
        expectError(ErrorCode.INVALID_REQUEST, "min_score", () -> retrieve(out));
      }
    }
    ObjectNode byWords = query(scope, "connection pool", TEXT);
    byWords.put("mode", TEXT);
    byWords.put("min_score", 0.5);
    expectError(ErrorCode.INVALID_REQUEST, "min_score", () -> retrieve(byWords));
  }

  // ---- discovery

  @Test
  @DisplayName("§3 discovery describes retrieval: modes, default mode and the embedding model")
  @Requirement(rule = "§3 relevance")
  void discovery_describesRetrieval() {
    JsonNode retrieval = discovery().path("retrieval");
    assertTrue(retrieval.isObject(), "discovery has a retrieval object: " + retrieval);
    Set<String> modes = new HashSet<>();
    retrieval.path("modes").forEach(m -> modes.add(m.asText()));
    assertTrue(modes.contains(TEXT), "text is always offered: " + modes);
    assertTrue(Set.of(TEXT, SEMANTIC, HYBRID).containsAll(modes), "known modes only: " + modes);
    boolean embedding = modes.contains(SEMANTIC) || modes.contains(HYBRID);
    assertEquals(
        embedding ? HYBRID : TEXT,
        retrieval.path("default_mode").asText(),
        "hybrid is the default with an embedding model, else text");
    if (embedding) {
      JsonNode model = retrieval.path("embedding");
      assertFalse(model.path("model").asText("").isBlank(), "the model is named: " + model);
      assertTrue(model.path("dimensions").asLong() > 0, "its dimensions: " + model);
    }
  }
}
