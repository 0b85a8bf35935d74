package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's §3 "Relevance" rules on what a response tells: {@code scores} aligned with the
 * records and descending across pages, and {@code total}, in every advertised mode.
 */
public abstract class RelevanceScoresTck extends RelevanceFiltersTck {
  @Test
  @DisplayName("§3 a relevance response has 'scores', aligned with 'records', descending")
  @Requirement(rule = "§3 relevance")
  void relevance_scoresAreAlignedAndDescending() {
    ObjectNode scope = scope("project", unique("rel"));
    List<ObjectNode> records = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      records.add(note(scope, "r" + i, "alpha ".repeat(1 + i % 4) + "and filler words " + i));
    }
    storeAll(records);
    for (String mode : retrieval().modes()) {
      ObjectNode query = query(scope, "alpha", mode);
      query.put("limit", 3);
      double previous = Double.POSITIVE_INFINITY;
      int seen = 0;
      for (int pages = 0; pages < 10; pages++) {
        JsonNode page = retrieve(query);
        JsonNode scores = page.path("scores");
        assertTrue(scores.isArray(), mode + ": scores present: " + page);
        assertEquals(page.path("records").size(), scores.size(), mode + ": one score a record");
        for (JsonNode score : scores) {
          assertTrue(score.isNumber(), mode + ": a score is a number: " + score);
          assertTrue(
              score.doubleValue() <= previous,
              mode + ": scores never increase, across pages too: " + previous + " then " + score);
          previous = score.doubleValue();
        }
        seen += scores.size();
        if (!page.hasNonNull("next_cursor")) {
          break;
        }
        query.put("cursor", page.path("next_cursor").asText());
      }
      assertEquals(8, seen, mode + ": every match paged");
    }
  }

  @Test
  @DisplayName(
      "§3 total counts the records that pass the other criteria and match: by a word (text), by"
          + " meaning (semantic) or either (hybrid)")
  @Requirement(rule = "§3 relevance")
  void relevance_totalCountsAsTheContractSays() {
    ObjectNode scope = scope("project", unique("rel"));
    ObjectNode wrapper = note(scope, "x1", "The Maven wrapper is pinned");
    wrapper.put("type", "fact");
    storeAll(
        List.of(
            note(scope, "m1", "Maven builds the project"),
            note(scope, "m2", "Gradle is not used"),
            note(scope, "m3", "Maven replaced Gradle last year"),
            note(scope, "n1", "Lunch is at noon"),
            note(scope, "n2", "The office is closed on Sunday"),
            wrapper));
    for (String mode : retrieval().modes()) {
      boolean lexical = mode.equals(TEXT);
      ObjectNode typed = query(scope, "maven gradle", mode);
      typed.put("limit", 1);
      typed.putArray("types").add("note");
      long typedTotal = retrieve(typed).path("total").asLong();
      ObjectNode all = query(scope, "maven gradle", mode);
      all.put("limit", 2);
      long total = retrieve(all).path("total").asLong();
      if (lexical) {
        assertEquals(3, typedTotal, mode + ", types");
        assertEquals(4, total, mode + ": total");
      } else {
        // Which records are near enough in meaning is the model's to say; hybrid holds at least
        // every record with a word, and a type filter only narrows.
        assertTrue(total <= 6 && typedTotal <= total, mode + ": total " + total);
        if (mode.equals(HYBRID)) {
          assertTrue(total >= 4 && typedTotal >= 3, mode + ": total " + total);
        }
      }
      Set<String> paged = new HashSet<>();
      for (int pages = 0; pages < 10; pages++) {
        JsonNode page = retrieve(all);
        assertEquals(total, page.path("total").asLong(), mode + ": total on every page");
        paged.addAll(ids(page));
        if (!page.hasNonNull("next_cursor")) {
          break;
        }
        all.put("cursor", page.path("next_cursor").asText());
      }
      assertEquals(total, paged.size(), mode + ": paging visits total records: " + paged);
    }
  }
}
