package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/**
 * Reads an operation's JSON request field by field, naming the field in every {@code
 * invalid_request} error, and refuses fields the operation does not know (a misspelt {@code tag}
 * must not silently widen a query).
 */
public final class RequestReader {
  private final ObjectNode request;
  private final Set<String> read = new HashSet<>();

  private RequestReader(ObjectNode request) {
    this.request = request;
  }

  /** A reader over {@code request}, which must be a JSON object (null reads as {@code {}}). */
  public static RequestReader of(JsonNode request) {
    if (request == null || request.isNull() || request.isMissingNode()) {
      return new RequestReader(Json.object());
    }
    if (!request.isObject()) {
      throw SgmException.invalidRequest("request", "must be a JSON object");
    }
    return new RequestReader((ObjectNode) request);
  }

  /** The raw value of a field, or null when absent or JSON null. */
  public JsonNode raw(String field) {
    read.add(field);
    JsonNode node = request.get(field);
    return node == null || node.isNull() ? null : node;
  }

  public ObjectNode requireObject(String field) {
    JsonNode node = raw(field);
    if (node == null) {
      throw SgmException.invalidRequest(field, "is required");
    }
    if (!node.isObject()) {
      throw SgmException.invalidRequest(field, "must be an object");
    }
    return (ObjectNode) node;
  }

  public ObjectNode optionalObject(String field) {
    JsonNode node = raw(field);
    if (node == null) {
      return null;
    }
    if (!node.isObject()) {
      throw SgmException.invalidRequest(field, "must be an object");
    }
    return (ObjectNode) node;
  }

  public Scope requireScope(String field) {
    read.add(field);
    return Scope.fromJson(request.get(field), field, ErrorCode.INVALID_REQUEST);
  }

  public String requireString(String field) {
    String value = optionalString(field);
    if (value == null || value.isEmpty()) {
      throw SgmException.invalidRequest(field, "is required and must be a non-empty string");
    }
    return value;
  }

  public String optionalString(String field) {
    JsonNode node = raw(field);
    if (node == null) {
      return null;
    }
    if (!node.isTextual()) {
      throw SgmException.invalidRequest(field, "must be a string");
    }
    return node.textValue();
  }

  public boolean optionalBoolean(String field, boolean defaultValue) {
    JsonNode node = raw(field);
    if (node == null) {
      return defaultValue;
    }
    if (!node.isBoolean()) {
      throw SgmException.invalidRequest(field, "must be true or false");
    }
    return node.booleanValue();
  }

  /** An optional whole number within [min, max]. */
  public Long optionalLong(String field, long min, long max) {
    JsonNode node = raw(field);
    if (node == null) {
      return null;
    }
    if (!node.isIntegralNumber() || !node.canConvertToLong()) {
      throw SgmException.invalidRequest(field, "must be a whole number");
    }
    long value = node.longValue();
    if (value < min || value > max) {
      throw SgmException.invalidRequest(
          field, "must be between " + min + " and " + max + ", was " + value);
    }
    return value;
  }

  /** An optional number within [min, max]. */
  public Double optionalDouble(String field, double min, double max) {
    JsonNode node = raw(field);
    if (node == null) {
      return null;
    }
    if (!node.isNumber()) {
      throw SgmException.invalidRequest(field, "must be a number");
    }
    double value = node.doubleValue();
    if (!(value >= min && value <= max)) {
      throw SgmException.invalidRequest(
          field, "must be between " + min + " and " + max + ", was " + node.asText());
    }
    return value;
  }

  public List<String> optionalStringList(String field) {
    JsonNode node = raw(field);
    if (node == null) {
      return List.of();
    }
    if (!node.isArray()) {
      throw SgmException.invalidRequest(field, "must be an array of strings");
    }
    List<String> list = new ArrayList<>();
    for (int i = 0; i < node.size(); i++) {
      if (!node.get(i).isTextual()) {
        throw SgmException.invalidRequest(field + "[" + i + "]", "must be a string");
      }
      list.add(node.get(i).textValue());
    }
    return List.copyOf(list);
  }

  public Instant optionalTimestamp(String field) {
    String text = optionalString(field);
    return text == null ? null : Timestamps.parse(text, field);
  }

  /**
   * Fails on any field that was not read: the request carried something this operation does not
   * know.
   */
  public void finish() {
    for (Iterator<String> it = request.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (!read.contains(name)) {
        throw SgmException.invalidRequest(
            name, "is not a field of this request; known fields: " + known());
      }
    }
  }

  private List<String> known() {
    return read.stream().sorted().toList();
  }
}
