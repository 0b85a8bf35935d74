package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.StorageQuery.Position;
import dev.sgm.search.SearchQuery;
import dev.sgm.search.Statistics;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Opaque paging cursors: the last row's position, the paging mark taken on the first page, and a
 * fingerprint of the query, so a cursor cannot be replayed against a different query. A relevance
 * cursor also carries what keeps later pages ranked as the first: the text statistics of the first
 * page.
 */
final class Cursors {
  private static final int FORMAT = 1;

  /**
   * 3: scores on the shared relevance scale; a cursor of the normalised scores before is not ours.
   */
  private static final int RELEVANCE_FORMAT = 3;

  /** A decoded cursor. */
  record Cursor(Position after, long mark) {}

  /** A decoded relevance cursor. */
  record Relevance(
      long mark,
      long vectorGeneration,
      SearchQuery.After after,
      int offset,
      SearchQuery.Frozen frozen) {}

  static String encodeRelevance(
      RetrieveQuery query,
      long mark,
      long vectorGeneration,
      SearchQuery.After after,
      int offset,
      SearchQuery.Frozen frozen) {
    ObjectNode json = Json.object();
    json.put("v", RELEVANCE_FORMAT);
    json.put("m", mark);
    json.put("g", vectorGeneration);
    json.put("s", after.value());
    json.put("k", after.rowKey());
    json.put("o", offset);
    if (frozen != null) {
      json.put("t", frozen.statistics().encode());
    }
    json.put("q", fingerprint(query));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.writeBytes(json));
  }

  static Relevance decodeRelevance(RetrieveQuery query) {
    JsonNode json = parse(query.cursor());
    if (json.path("v").asInt() != RELEVANCE_FORMAT
        || !json.path("m").isIntegralNumber()
        || !json.path("g").isIntegralNumber()
        || !json.path("s").isNumber()
        || !json.path("k").isIntegralNumber()
        || !json.path("o").canConvertToInt()
        || json.path("o").asInt() < 0) {
      throw notOurs();
    }
    checkFingerprint(query, json);
    SearchQuery.Frozen frozen = null;
    if (json.has("t")) {
      try {
        frozen = new SearchQuery.Frozen(Statistics.decode(json.path("t").asText()));
      } catch (IllegalArgumentException e) {
        throw notOurs();
      }
    }
    return new Relevance(
        json.path("m").longValue(),
        json.path("g").longValue(),
        new SearchQuery.After(json.path("s").asDouble(), json.path("k").longValue()),
        json.path("o").asInt(),
        frozen);
  }

  private static JsonNode parse(String cursor) {
    try {
      return Json.parse(new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException | SgmException e) {
      throw notOurs();
    }
  }

  private static SgmException notOurs() {
    return SgmException.invalidRequest("cursor", "is not a cursor this server issued");
  }

  private static void checkFingerprint(RetrieveQuery query, JsonNode json) {
    if (!fingerprint(query).equals(json.path("q").asText())) {
      throw SgmException.invalidRequest(
          "cursor",
          "belongs to a different query; send the same query with only the cursor (and limit) changed");
    }
  }

  private Cursors() {}

  static String encode(RetrieveQuery query, Position after, long mark) {
    ObjectNode json = Json.object();
    json.put("v", FORMAT);
    json.put("m", mark);
    json.put("s", after.sortValue());
    json.put("k", after.rowKey());
    json.put("q", fingerprint(query));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(Json.writeBytes(json));
  }

  static Cursor decode(RetrieveQuery query) {
    JsonNode json = parse(query.cursor());
    if (json.path("v").asInt() != FORMAT
        || !json.path("m").isIntegralNumber()
        || !json.path("s").isIntegralNumber()
        || !json.path("k").isIntegralNumber()) {
      throw notOurs();
    }
    checkFingerprint(query, json);
    return new Cursor(
        new Position(json.path("s").longValue(), json.path("k").longValue()),
        json.path("m").longValue());
  }

  /** Everything but the cursor and the page size identifies the query. */
  private static String fingerprint(RetrieveQuery query) {
    ObjectNode json = query.toJson();
    json.remove("cursor");
    json.remove("limit");
    return RecordIndexer.sha256(Json.write(json)).substring(0, 16);
  }
}
