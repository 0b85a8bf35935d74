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

  void storeAll(List<ObjectNode> records) {
    for (int from = 0; from < records.size(); from += 500) {
      ObjectNode request = Json.object();
      records
          .subList(from, Math.min(records.size(), from + 500))
          .forEach(request.withArray("records")::add);
      call("store_batch", request);
    }
  }

  /** The id of the first record of {@code result}, which must hold one. */
  static String first(JsonNode result) {
    List<String> ids = ids(result);
    assertFalse(ids.isEmpty(), "something is found: " + result);
    return ids.get(0);
  }
}
