package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's §3 "Relevance" rules on what {@code text} finds and how it ranks: plain questions,
 * stemming, the number of words matched, the weight of titles and tags, identifiers typed as
 * written, and {@code mode: text}.
 */
public abstract class RelevanceTextTck extends RelevanceFixture {
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
}
