package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's §3 "Relevance" rule that every other criterion filters before ranking: a page is
 * full of records that pass it however many better-scoring records fail it, and a result never
 * holds a record of another scope. Each test runs once per mode that discovery advertises.
 */
public abstract class RelevanceFiltersTck extends RelevanceTextTck {
  /** More better-scoring records than any page or over-fetch, so filtering late shows. */
  private static final int BETTER_SCORING_OTHERS = 250;

  private static final int FILTERED_MATCHES = 6;

  /**
   * Stores {@value #BETTER_SCORING_OTHERS} records that match the query better but fail one
   * criterion, and {@value #FILTERED_MATCHES} weaker matches that pass it; a page of 5 must be
   * full, every record on it must pass, and paging must visit exactly the passing ones.
   */
  private void assertFiltersBeforeRanking(
      ObjectNode scope,
      Consumer<ObjectNode> passing,
      Consumer<ObjectNode> failing,
      Runnable between,
      Consumer<ObjectNode> criterion,
      Predicate<JsonNode> passes) {
    List<ObjectNode> others = new ArrayList<>();
    for (int i = 0; i < BETTER_SCORING_OTHERS; i++) {
      ObjectNode r = note(scope, "other-" + i, "alpha alpha alpha");
      failing.accept(r);
      others.add(r);
    }
    storeAllNow(others);
    between.run();
    List<ObjectNode> matches = new ArrayList<>();
    for (int i = 0; i < FILTERED_MATCHES; i++) {
      ObjectNode r =
          note(scope, "match-" + i, "alpha beside many other words that dilute it, number " + i);
      passing.accept(r);
      matches.add(r);
    }
    storeAll(matches);
    Set<String> expected = new HashSet<>();
    matches.forEach(m -> expected.add(m.path("id").asText()));

    for (String mode : retrieval().modes()) {
      ObjectNode query = query(scope, "alpha", mode);
      query.put("limit", 5);
      criterion.accept(query);
      JsonNode page = retrieve(query);
      assertEquals(5, page.path("records").size(), mode + ": the first page is full: " + ids(page));
      for (JsonNode r : page.path("records")) {
        assertTrue(passes.test(r), mode + ": every record passes the criterion: " + r);
      }
      assertEquals(FILTERED_MATCHES, page.path("total").asLong(), mode + ": total");
      List<String> seen = new ArrayList<>(ids(page));
      String cursor = page.path("next_cursor").asText(null);
      for (int pages = 0; cursor != null && pages < 10; pages++) {
        query.put("cursor", cursor);
        JsonNode next = retrieve(query);
        seen.addAll(ids(next));
        cursor = next.path("next_cursor").asText(null);
      }
      assertEquals(FILTERED_MATCHES, seen.size(), mode + ": no repeats: " + seen);
      assertEquals(expected, new HashSet<>(seen), mode + ": every passing record once");
    }
  }

  private static final Runnable NOTHING = () -> {};

  @Test
  @DisplayName("§3 'types' filters before ranking: a page of 5 is full")
  @Requirement(rule = "§3 relevance")
  void filtersBeforeRanking_types() {
    ObjectNode scope = scope("project", unique("rel"));
    assertFiltersBeforeRanking(
        scope,
        r -> r.put("type", "fact"),
        r -> r.put("type", "note"),
        NOTHING,
        q -> q.putArray("types").add("fact"),
        r -> r.path("type").asText().equals("fact"));
  }

  @Test
  @DisplayName("§3 'tags' filters before ranking: a page of 5 is full")
  @Requirement(rule = "§3 relevance")
  void filtersBeforeRanking_tags() {
    ObjectNode scope = scope("project", unique("rel"));
    assertFiltersBeforeRanking(
        scope,
        r -> r.putArray("tags").add("wanted").add("shared"),
        r -> r.putArray("tags").add("shared"),
        NOTHING,
        q -> q.putArray("tags").add("wanted"),
        r -> r.path("tags").toString().contains("\"wanted\""));
  }

  @Test
  @DisplayName("§3 'filter' on data filters before ranking: a page of 5 is full")
  @Requirement(rule = "§3 relevance")
  void filtersBeforeRanking_filter() {
    ObjectNode scope = scope("project", unique("rel"));
    assertFiltersBeforeRanking(
        scope,
        r -> r.putObject("data").put("state", "wanted"),
        r -> r.putObject("data").put("state", "other"),
        NOTHING,
        q -> q.putObject("filter").put("data.state", "wanted"),
        r -> r.path("data").path("state").asText().equals("wanted"));
  }

  @Test
  @DisplayName("§3 'created_after' filters before ranking: a page of 5 is full")
  @Requirement(rule = "§3 relevance")
  void filtersBeforeRanking_createdAfter() {
    ObjectNode scope = scope("project", unique("rel"));
    assertFiltersBeforeRanking(
        scope,
        r -> r.put("created_at", "2024-06-01T00:00:00Z"),
        r -> r.put("created_at", "2021-01-01T00:00:00Z"),
        NOTHING,
        q -> q.put("created_after", "2024-01-01T00:00:00Z"),
        r -> r.path("created_at").asText().startsWith("2024-06-01"));
  }

  @Test
  @DisplayName("§3 'created_before' filters before ranking: a page of 5 is full")
  @Requirement(rule = "§3 relevance")
  void filtersBeforeRanking_createdBefore() {
    ObjectNode scope = scope("project", unique("rel"));
    assertFiltersBeforeRanking(
        scope,
        r -> r.put("created_at", "2021-01-01T00:00:00Z"),
        r -> r.put("created_at", "2024-06-01T00:00:00Z"),
        NOTHING,
        q -> q.put("created_before", "2022-01-01T00:00:00Z"),
        r -> r.path("created_at").asText().startsWith("2021-01-01"));
  }

  @Test
  @DisplayName("§3 'updated_after' filters before ranking: a page of 5 is full")
  @Requirement(rule = "§3 relevance")
  void filtersBeforeRanking_updatedAfter() {
    ObjectNode scope = scope("project", unique("rel"));
    String[] boundary = new String[1];
    assertFiltersBeforeRanking(
        scope,
        r -> {},
        r -> {},
        () -> {
          // Every record stored from here on is updated after the last of the others.
          boundary[0] =
              read(scope, "other-" + (BETTER_SCORING_OTHERS - 1)).path("updated_at").asText();
          pause();
        },
        q -> q.put("updated_after", boundary[0]),
        r -> r.path("id").asText().startsWith("match-"));
  }

  private static void pause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Test
  @DisplayName("§3 'scope_mode' filters before ranking: a page of 5 is full")
  @Requirement(rule = "§3 relevance")
  void filtersBeforeRanking_scopeMode() {
    String project = unique("rel");
    ObjectNode session = scope("project", project, "session", "s1");
    ObjectNode narrower = scope("project", project, "session", "s1", "agent", "a");
    ObjectNode parent = scope("project", project);
    ObjectNode sibling = scope("project", project, "session", "s2");
    int[] n = {0};
    assertFiltersBeforeRanking(
        session,
        r -> r.set("scope", (n[0]++ % 2 == 0 ? session : narrower).deepCopy()),
        r -> r.set("scope", (n[0]++ % 2 == 0 ? parent : sibling).deepCopy()),
        NOTHING,
        q -> q.put("scope_mode", "descendants"),
        r -> r.path("scope").equals(session) || r.path("scope").equals(narrower));
  }

  @Test
  @DisplayName("§3 a relevance result never holds a record of another scope")
  @Requirement(rule = "§3 relevance")
  void relevance_neverCrossesScopes() {
    String project = unique("rel");
    ObjectNode session = scope("project", project, "session", "s1");
    List<ObjectNode> records = new ArrayList<>();
    records.add(note(session, "mine", "alpha beside many other words that dilute it"));
    records.add(note(scope("project", project), "parent", "alpha alpha alpha"));
    records.add(note(scope("project", project, "session", "s2"), "sibling", "alpha alpha"));
    records.add(
        note(scope("project", project, "session", "s1", "agent", "a"), "narrower", "alpha alpha"));
    records.add(note(scope("project", project + "-x", "session", "s1"), "stranger", "alpha"));
    for (ObjectNode r : records) {
      store(r);
    }
    awaitEmbedded(session);
    for (String mode : retrieval().modes()) {
      JsonNode result = search(session, "alpha", mode);
      assertEquals(List.of("mine"), ids(result), mode + ": only the scope's own record");
      assertEquals(1, result.path("total").asLong(), mode + ": total");
    }
  }
}
