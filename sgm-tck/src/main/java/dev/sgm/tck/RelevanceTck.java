package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's §3 "Relevance" rules: what {@code text} finds (plain questions, stemming,
 * identifiers), how it ranks, that every other criterion filters before ranking, {@code scores},
 * {@code total}, deletions and updates, paging under writes, read-your-writes, the {@code mode}
 * field and its errors, bad {@code text}, and discovery's {@code retrieval} object.
 *
 * <p>The suite runs against an implementation whose discovery advertises retrieval (a {@code
 * retrieval} object, which the contract's §4 does not require); against one that does not, every
 * test is skipped with that reason. Tests of lexical behaviour ask for {@code mode: text}; tests
 * that hold in every mode run once per mode that discovery advertises; semantic and hybrid tests
 * are skipped, with the reason, when the mode is not advertised. The mode a query is meant to use
 * is left out of the request when it is the default, as most clients write it.
 */
public abstract class RelevanceTck extends TckSupport {
  private static final String TEXT = "text";
  private static final String SEMANTIC = "semantic";
  private static final String HYBRID = "hybrid";

  /** More better-scoring records than any page or over-fetch, so filtering late shows. */
  private static final int BETTER_SCORING_OTHERS = 250;

  private static final int FILTERED_MATCHES = 6;

  /** Skips every test, with the reason, unless discovery advertises retrieval. */
  @BeforeEach
  final void assumeRetrievalIsAdvertised() {
    Assumptions.assumeTrue(
        discovery().path("retrieval").isObject(),
        "the implementation does not advertise 'retrieval' in discovery");
  }

  /** What discovery says about retrieval; without {@code modes}, text only. */
  private record Retrieval(List<String> modes, String defaultMode) {}

  private Retrieval retrieval() {
    JsonNode retrieval = discovery().path("retrieval");
    List<String> modes = new ArrayList<>();
    retrieval.path("modes").forEach(m -> modes.add(m.asText()));
    if (modes.isEmpty()) {
      modes.add(TEXT);
    }
    return new Retrieval(modes, retrieval.path("default_mode").asText(TEXT));
  }

  private void assumeMode(String mode) {
    Assumptions.assumeTrue(
        retrieval().modes().contains(mode),
        "the implementation does not advertise the retrieval mode '" + mode + "'");
  }

  /** A relevance query in {@code scope} for {@code text} in {@code mode}. */
  private ObjectNode query(ObjectNode scope, String text, String mode) {
    ObjectNode query = Json.object();
    query.set("scope", scope.deepCopy());
    query.put("text", text);
    if (!mode.equals(retrieval().defaultMode())) {
      query.put("mode", mode);
    }
    return query;
  }

  private JsonNode search(ObjectNode scope, String text, String mode) {
    return retrieve(query(scope, text, mode));
  }

  /**
   * A search by meaning once the records just stored are embedded: the contract lets the semantic
   * index lag behind a store, and a response says how many records still wait ({@code
   * retrieval.pending_embeddings}). It waits on discovery's count ({@code
   * retrieval.index.pending_embeddings}) where the server gives one: a search is a caller, and a
   * server may rightly hold its embedding back while callers search, so polling by searches can
   * starve the very work it waits for on a busy machine. Waits at most two minutes; a server that
   * says nothing is asked once.
   */
  private JsonNode searchWhenEmbedded(ObjectNode scope, String text, String mode) {
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline) {
      JsonNode waiting = discovery().path("retrieval").path("index").path("pending_embeddings");
      if (!waiting.isNumber() || waiting.asLong() == 0 || !waitAWhile()) {
        break;
      }
    }
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

  private static ObjectNode note(ObjectNode scope, String id, String content) {
    ObjectNode record = record(id, "note", scope);
    record.put("content", content);
    return record;
  }

  private void storeAll(List<ObjectNode> records) {
    for (int from = 0; from < records.size(); from += 500) {
      ObjectNode request = Json.object();
      records
          .subList(from, Math.min(records.size(), from + 500))
          .forEach(request.withArray("records")::add);
      call("store_batch", request);
    }
  }

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

  // ---- what text finds

  @Test
  @DisplayName("§3 a question in plain words finds the record that answers it")
  @Requirement(rule = "§3 relevance")
  void relevance_aQuestionFindsItsAnswer() {
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "answer", "The build uses Maven"),
            note(scope, "deploy", "Deployments go out to Kubernetes on Fridays"),
            note(scope, "lunch", "Lunch is served at noon in the canteen"),
            note(scope, "db", "Persistence is handled by PostgreSQL 15"),
            note(scope, "ci", "Pull requests need two approvals before merging")));
    // In the default mode, as an agent asks.
    JsonNode result = search(scope, "what build tool do we use", retrieval().defaultMode());
    assertFalse(ids(result).isEmpty(), "the question finds something: " + result);
    assertEquals("answer", ids(result).get(0), "the answer ranks first: " + ids(result));
  }

  @Test
  @DisplayName("§3 words are stemmed: 'connection pool' finds 'connections are pooled'")
  @Requirement(rule = "§3 relevance")
  void relevance_wordsAreStemmed() {
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "pooled", "Connections are pooled by the driver"),
            note(scope, "pooling", "We are pooling connections for the workers"),
            note(scope, "cache", "The cache is warmed at start-up"),
            note(scope, "logs", "Logs rotate daily")));
    List<String> found = ids(search(scope, "connection pool", TEXT));
    assertTrue(found.size() >= 2, "both stemmed forms are found: " + found);
    assertEquals(Set.of("pooled", "pooling"), new HashSet<>(found.subList(0, 2)), found::toString);
  }

  @Test
  @DisplayName("§3 a record with more of the query's words ranks above one with fewer")
  @Requirement(rule = "§3 relevance")
  void relevance_moreMatchingWordsRankHigher() {
    ObjectNode scope = scope("project", unique("rel"));
    // The same length each, so only the number of query words present differs.
    storeAll(
        List.of(
            note(scope, "one", "Deploy the batch daemon every night"),
            note(scope, "three", "Deploy the cache server every night"),
            note(scope, "two", "Deploy the cache daemon every night"),
            note(scope, "none", "Rotate the audit logs every night")));
    JsonNode result = search(scope, "deploy cache server", TEXT);
    assertEquals(List.of("three", "two", "one"), ids(result), "ranked by words matched");
  }

  @Test
  @DisplayName("§3 title and tag matches weigh more than content-only matches")
  @Requirement(rule = "§3 relevance", level = Requirement.Level.SHOULD)
  void relevance_titleAndTagsWeighMore() {
    ObjectNode scope = scope("project", unique("rel"));
    ObjectNode titled = note(scope, "title", "Applies to every outbound call we make.");
    titled.put("title", "Retry policy");
    ObjectNode tagged = note(scope, "tag", "Applies to every outbound call we make.");
    tagged.putArray("tags").add("retry");
    ObjectNode content = note(scope, "content", "Every outbound call we make has a retry.");
    storeAll(List.of(content, titled, tagged, note(scope, "other", "Nothing to see here.")));
    List<String> ranked = ids(search(scope, "retry", TEXT));
    assertEquals(3, ranked.size(), ranked::toString);
    assertEquals("content", ranked.get(2), "the content-only match ranks last: " + ranked);
  }

  @Test
  @DisplayName("§3 identifiers typed as they are written are found: HikariCP, user_id, v1.2")
  @Requirement(rule = "§3 relevance")
  void relevance_identifiersAreFoundAsTyped() {
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "hikari", "The pool is HikariCP with ten connections"),
            note(scope, "hikari-word", "Hikari is a Japanese word for light"),
            note(scope, "user-id", "The column user_id is indexed on every table we keep"),
            note(scope, "user-and-id", "Each user shows an id badge"),
            note(scope, "v12", "Clients must upgrade to v1.2 of the SDK"),
            note(scope, "versions", "Version 1 and version 2 of the SDK are supported")));
    assertEquals("hikari", first(search(scope, "HikariCP", TEXT)), "HikariCP");
    assertEquals("user-id", first(search(scope, "user_id", TEXT)), "user_id");
    assertEquals("v12", first(search(scope, "v1.2", TEXT)), "v1.2");
  }

  private static String first(JsonNode result) {
    List<String> ids = ids(result);
    assertFalse(ids.isEmpty(), "something is found: " + result);
    return ids.get(0);
  }

  @Test
  @DisplayName("§3 mode 'text' is accepted and searches by words")
  @Requirement(rule = "§3 relevance")
  void relevance_modeTextIsAccepted() {
    ObjectNode scope = scope("project", unique("rel"));
    storeAll(
        List.of(
            note(scope, "maven", "The build uses Maven"), note(scope, "other", "Lunch at noon")));
    ObjectNode query = json("{'text': 'maven', 'mode': 'text'}");
    query.set("scope", scope);
    JsonNode result = retrieve(query);
    assertEquals(List.of("maven"), ids(result));
    assertEquals(1, result.path("total").asLong());
  }

  // ---- filters before ranking

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
    storeAll(others);
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
    for (String mode : retrieval().modes()) {
      JsonNode result = search(session, "alpha", mode);
      assertEquals(List.of("mine"), ids(result), mode + ": only the scope's own record");
      assertEquals(1, result.path("total").asLong(), mode + ": total");
    }
  }

  // ---- scores and total

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
      "§3 total counts the records that pass the other criteria and match a word (text) or all"
          + " of them (semantic, hybrid)")
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
      assertEquals(lexical ? 3 : 5, retrieve(typed).path("total").asLong(), mode + ", types");

      ObjectNode all = query(scope, "maven gradle", mode);
      all.put("limit", 2);
      long total = retrieve(all).path("total").asLong();
      assertEquals(lexical ? 4 : 6, total, mode + ": total");
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

  // ---- deletes and updates

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
        storeAll(writes);
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

  // ---- mode and bad input

  @Test
  @DisplayName("§3 an unknown mode is invalid_request naming 'mode'")
  @Requirement(rule = "§3 relevance")
  void relevance_unknownModeIsInvalid() {
    ObjectNode scope = scope("project", unique("rel"));
    store(note(scope, "r", "The build uses Maven"));
    for (String request :
        List.of("{'text': 'maven', 'mode': 'fuzzy'}", "{'text': 'maven', 'mode': 3}")) {
      ObjectNode query = json(request);
      query.set("scope", scope);
      expectError(ErrorCode.INVALID_REQUEST, "mode", () -> retrieve(query));
    }
  }

  @Test
  @DisplayName("§3 semantic or hybrid without an embedding model is unsupported_capability")
  @Requirement(rule = "§3 relevance")
  void relevance_semanticWithoutAnEmbedderIsUnsupported() {
    Retrieval retrieval = retrieval();
    Assumptions.assumeFalse(
        retrieval.modes().contains(SEMANTIC) || retrieval.modes().contains(HYBRID),
        "the implementation has an embedding model");
    ObjectNode scope = scope("project", unique("rel"));
    store(note(scope, "r", "The build uses Maven"));
    for (String mode : List.of(SEMANTIC, HYBRID)) {
      ObjectNode query = json("{'text': 'maven'}");
      query.set("scope", scope);
      query.put("mode", mode);
      expectError(ErrorCode.UNSUPPORTED_CAPABILITY, () -> retrieve(query));
    }
  }

  @Test
  @DisplayName("§3 empty or whitespace text is invalid_request naming 'text'")
  @Requirement(rule = "§3 relevance")
  void relevance_blankTextIsInvalid() {
    ObjectNode scope = scope("project", unique("rel"));
    for (String text : List.of("", "   ", "\t\n ")) {
      ObjectNode query = Json.object();
      query.set("scope", scope);
      query.put("text", text);
      expectError(ErrorCode.INVALID_REQUEST, TEXT, () -> retrieve(query));
    }
  }

  @Test
  @DisplayName("§3 a 100 KB text answers promptly with too_large or a truncation it states")
  @Requirement(rule = "§3 relevance")
  void relevance_hugeTextIsBounded() {
    ObjectNode scope = scope("project", unique("rel"));
    store(note(scope, "r", "The build uses Maven"));
    StringBuilder text = new StringBuilder("maven");
    for (int i = 0; text.length() < 100 * 1024; i++) {
      text.append(" word").append(i);
    }
    for (String mode : retrieval().modes()) {
      JsonNode response =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () -> {
                try {
                  return retrieve(query(scope, text.toString(), mode));
                } catch (SgmException e) {
                  if (e.code() != ErrorCode.TOO_LARGE) {
                    fail(
                        mode
                            + ": either too_large or an answer, not "
                            + e.code().wireName()
                            + ": "
                            + e.getMessage());
                  }
                  return null;
                }
              },
              mode + ": the work is bounded");
      if (response != null) {
        ObjectNode statement = ((ObjectNode) response).deepCopy();
        statement.remove("records");
        assertTrue(
            Json.write(statement).toLowerCase(Locale.ROOT).contains("truncat"),
            mode + ": an answer to a 100 KB text says it was truncated: " + statement);
      }
    }
  }

  // ---- semantic and hybrid

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
