package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.StorageQuery.Position;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Opaque paging cursors: the last row's position, the paging mark taken on the first page, and a
 * fingerprint of the query, so a cursor cannot be replayed against a different query.
 */
final class Cursors {
  private static final int FORMAT = 1;

  /** A decoded cursor. */
  record Cursor(Position after, long mark) {}

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
    String cursor = query.cursor();
    JsonNode json;
    try {
      json = Json.parse(new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException | SgmException e) {
      throw SgmException.invalidRequest("cursor", "is not a cursor this server issued");
    }
    if (json.path("v").asInt() != FORMAT
        || !json.path("m").isIntegralNumber()
        || !json.path("s").isIntegralNumber()
        || !json.path("k").isIntegralNumber()) {
      throw SgmException.invalidRequest("cursor", "is not a cursor this server issued");
    }
    if (!fingerprint(query).equals(json.path("q").asText())) {
      throw SgmException.invalidRequest(
          "cursor",
          "belongs to a different query; send the same query with only the cursor (and limit) changed");
    }
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
