package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertFalse;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * What the relevance suites share: the check that discovery advertises retrieval (every test is
 * skipped, with that reason, when it does not), the modes it advertises, and the queries and
 * records the tests speak in. The mode a query is meant to use is left out of the request when it
 * is the default, as most clients write it.
 */
public abstract class RelevanceFixture extends TckSupport {
  static final String TEXT = "text";
  static final String SEMANTIC = "semantic";
  static final String HYBRID = "hybrid";

  /** Skips every test, with the reason, unless discovery advertises retrieval. */
  @BeforeEach
  final void assumeRetrievalIsAdvertised() {
    Assumptions.assumeTrue(
        discovery().path("retrieval").isObject(),
        "the implementation does not advertise 'retrieval' in discovery");
  }

  /** What discovery says about retrieval; without {@code modes}, text only. */
  record Retrieval(List<String> modes, String defaultMode) {}

  Retrieval retrieval() {
    JsonNode retrieval = discovery().path("retrieval");
    List<String> modes = new ArrayList<>();
    retrieval.path("modes").forEach(m -> modes.add(m.asText()));
    if (modes.isEmpty()) {
      modes.add(TEXT);
    }
    return new Retrieval(modes, retrieval.path("default_mode").asText(TEXT));
  }

  void assumeMode(String mode) {
    Assumptions.assumeTrue(
        retrieval().modes().contains(mode),
        "the implementation does not advertise the retrieval mode '" + mode + "'");
  }

  /** A relevance query in {@code scope} for {@code text} in {@code mode}. */
  ObjectNode query(ObjectNode scope, String text, String mode) {
    ObjectNode query = Json.object();
    query.set("scope", scope.deepCopy());
    query.put("text", text);
    if (!mode.equals(retrieval().defaultMode())) {
      query.put("mode", mode);
    }
    return query;
  }

  JsonNode search(ObjectNode scope, String text, String mode) {
    return retrieve(query(scope, text, mode));
  }

  static ObjectNode note(ObjectNode scope, String id, String content) {
    ObjectNode record = record(id, "note", scope);
    record.put("content", content);
    return record;
  }

  /**
   * Stores {@code records}, then waits until the server has embedded them where it says how many
   * wait (discovery's {@code retrieval.index.pending_embeddings}): a record not embedded yet
   * matches nothing by meaning, and the contract lets the semantic index lag behind a store.
   */
  void storeAll(List<ObjectNode> records) {
    storeAllNow(records);
    if (!records.isEmpty()) {
      awaitEmbedded((ObjectNode) records.get(0).path("scope"));
    }
  }

  /** Stores {@code records} without waiting for their embeddings. */
  void storeAllNow(List<ObjectNode> records) {
    for (int from = 0; from < records.size(); from += 500) {
      ObjectNode request = Json.object();
      records
          .subList(from, Math.min(records.size(), from + 500))
          .forEach(request.withArray("records")::add);
      call("store_batch", request);
    }
  }

  /**
   * Waits until discovery says no record waits for an embedding, at most two minutes; a server that
   * gives no count is not waited for. A text search in {@code scope} first: it waits until the
   * index has applied every store before it, so that what was just stored counts as waiting; then
   * one search by meaning, which a server may answer only once those are embedded. Then polls
   * discovery rather than searches: a search is a caller, and a server may rightly hold its
   * embedding back while callers search.
   */
  void awaitEmbedded(ObjectNode scope) {
    if (!retrieval().modes().contains(SEMANTIC) && !retrieval().modes().contains(HYBRID)) {
      return;
    }
    ObjectNode byText = query(scope, "anything", TEXT);
    byText.put("mode", TEXT);
    byText.put("limit", 1);
    retrieve(byText);
    // A server that waits for the embeddings of earlier writes before it answers by meaning (read
    // your writes by meaning) does the waiting here; discovery then says none is left.
    ObjectNode byMeaning =
        query(scope, "anything", retrieval().modes().contains(HYBRID) ? HYBRID : SEMANTIC);
    byMeaning.put("mode", retrieval().modes().contains(HYBRID) ? HYBRID : SEMANTIC);
    byMeaning.put("limit", 1);
    retrieve(byMeaning);
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (System.nanoTime() < deadline) {
      JsonNode waiting = discovery().path("retrieval").path("index").path("pending_embeddings");
      if (!waiting.isNumber() || waiting.asLong() == 0) {
        return;
      }
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /** The id of the first record of {@code result}, which must hold one. */
  static String first(JsonNode result) {
    List<String> ids = ids(result);
    assertFalse(ids.isEmpty(), "something is found: " + result);
    return ids.get(0);
  }
}
