package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.RawNumberNode;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.RecordIndex.FieldValue;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Derives what storage and the search index filter a record by: its tags, the scalar leaves of
 * {@code data} and {@code metadata}, and {@code provenance.agent}. Query criteria are normalised
 * here too, so a query always speaks the index's language.
 */
final class RecordIndexer {
  /** Bounds the index rows of one record. */
  static final int MAX_FIELDS = 1_000;

  static final int MAX_FIELD_DEPTH = 16;

  /** Longer values are indexed by hash, so equality still works without huge index rows. */
  static final int MAX_FIELD_VALUE_LENGTH = 200;

  /** The one provenance field a filter can name. */
  static final String AGENT_PATH = "provenance.agent";

  RecordIndex index(ObjectNode record) {
    List<String> tags = new ArrayList<>(new LinkedHashSet<>(stringList(record.get("tags"))));
    List<FieldValue> fields = new ArrayList<>();
    addFields(fields, "data", record.get("data"), 0);
    addFields(fields, "metadata", record.get("metadata"), 0);
    // Who wrote a record is what a person filters by first when checking what agents stored.
    JsonNode agent = record.path("provenance").get("agent");
    if (agent != null && agent.isTextual()) {
      fields.add(new FieldValue(AGENT_PATH, normalise(agent)));
    }
    return new RecordIndex(tags, fields);
  }

  private static void addFields(List<FieldValue> out, String path, JsonNode node, int depth) {
    if (node == null || out.size() >= MAX_FIELDS || depth > MAX_FIELD_DEPTH) {
      return;
    }
    if (node.isObject()) {
      if (depth == 0 || !node.isEmpty()) {
        for (Map.Entry<String, JsonNode> e : node.properties()) {
          addFields(out, path + "." + e.getKey(), e.getValue(), depth + 1);
        }
      }
    } else if (node.isArray()) {
      // Array elements are indexed under the array's own path, so that a filter
      // data.labels = "x" matches ["x", "y"].
      for (JsonNode element : node) {
        addFields(out, path, element, depth + 1);
      }
    } else if (depth > 0) {
      out.add(new FieldValue(path, normalise(node)));
    }
  }

  /** A retrieve's {@code filter}, in the form a record's fields are indexed in. */
  static List<FieldValue> filters(RetrieveQuery query) {
    List<FieldValue> filters = new ArrayList<>();
    for (Map.Entry<String, JsonNode> e : query.filter().entrySet()) {
      filters.add(new FieldValue(e.getKey(), normalise(e.getValue())));
    }
    return filters;
  }

  /** A retrieve's time bound as storage and the index keep times: microseconds, or null. */
  static Long micros(Instant instant) {
    return instant == null ? null : Timestamps.toMicros(instant);
  }

  /** The index form of a scalar: type-tagged, numbers by value ({@code 1} equals {@code 1.0}). */
  static String normalise(JsonNode scalar) {
    String value;
    if (scalar.isTextual()) {
      value = "s:" + scalar.textValue();
    } else if (scalar.isNumber()) {
      BigDecimal number =
          scalar instanceof RawNumberNode raw ? raw.decimalValue() : scalar.decimalValue();
      value = "n:" + number.stripTrailingZeros().toString();
    } else if (scalar.isBoolean()) {
      value = "b:" + scalar.booleanValue();
    } else {
      value = "null";
    }
    if (value.length() > MAX_FIELD_VALUE_LENGTH) {
      value = "h:" + sha256(value);
    }
    return value;
  }

  static String sha256(String text) {
    return sha256(text.getBytes(StandardCharsets.UTF_8));
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is always present", e);
    }
  }

  private static List<String> stringList(JsonNode node) {
    List<String> list = new ArrayList<>();
    if (node != null && node.isArray()) {
      node.forEach(n -> list.add(n.asText()));
    }
    return list;
  }
}
