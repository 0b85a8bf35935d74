package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import java.nio.charset.StandardCharsets;
import java.util.regex.Pattern;

/**
 * The record rules of the contract, in one place: every store and batch goes through {@link
 * #validate}, and every failure is {@code invalid_record} (or {@code too_large}) naming the field.
 */
final class RecordValidator {
  static final int MAX_ID_LENGTH = 256;

  /**
   * The longest agent name and tag: names that people and tools read, kept and indexed as they are,
   * so bounded like an id.
   */
  static final int MAX_NAME_LENGTH = 256;

  static final int MAX_TYPE_LENGTH = 64;
  private static final Pattern TYPE = Pattern.compile("[a-z][a-z0-9_.-]*");

  /** Why a blank agent name, or one that is not a string, is refused. */
  private static final String NOT_A_NAME = "must be a non-empty string";

  private final long maxRecordBytes;

  RecordValidator(long maxRecordBytes) {
    this.maxRecordBytes = maxRecordBytes;
  }

  long maxRecordBytes() {
    return maxRecordBytes;
  }

  /** Checks {@code json} against every record rule and returns it as an object node. */
  ObjectNode validate(JsonNode json) {
    if (json == null || !json.isObject()) {
      throw SgmException.invalidRecord("record", "must be a JSON object");
    }
    ObjectNode record = (ObjectNode) json;
    long size = Json.write(record).getBytes(StandardCharsets.UTF_8).length;
    if (size > maxRecordBytes) {
      throw new SgmException(
          ErrorCode.TOO_LARGE,
          "record: is " + size + " bytes; the limit is " + maxRecordBytes + " bytes",
          java.util.List.of(
              new dev.sgm.api.FieldError("record", "larger than " + maxRecordBytes + " bytes")));
    }
    validateId(record.get("id"));
    validateType(record.get("type"));
    Scope.fromJson(record.get("scope"), "scope", ErrorCode.INVALID_RECORD);
    validateProvenance(record.get("provenance"));
    timestamp(record, "created_at", "created_at");
    timestamp(record, "updated_at", "updated_at");
    optionalString(record, "title");
    optionalString(record, "content");
    optionalString(record, "schema_version");
    stringArray(record, "tags");
    JsonNode tags = record.get("tags");
    if (tags != null) {
      for (int i = 0; i < tags.size(); i++) {
        if (tooLong(tags.get(i).textValue())) {
          throw SgmException.invalidRecord(
              "tags[" + i + "]", "is longer than " + MAX_NAME_LENGTH + " characters");
        }
      }
    }
    stringArray(record, "links");
    for (String field : new String[] {"metadata", "data", "sensitivity", "reference"}) {
      JsonNode node = record.get(field);
      if (node != null && !node.isObject()) {
        throw SgmException.invalidRecord(field, "must be an object");
      }
    }
    validateReference(record.get("reference"));
    JsonNode annotations = record.get("annotations");
    if (annotations != null) {
      if (!annotations.isArray()) {
        throw SgmException.invalidRecord("annotations", "must be an array of objects");
      }
      for (int i = 0; i < annotations.size(); i++) {
        if (!annotations.get(i).isObject()) {
          throw SgmException.invalidRecord("annotations[" + i + "]", "must be an object");
        }
      }
    }
    JsonNode version = record.get("version");
    if (version != null
        && (!version.isIntegralNumber()
            || !version.canConvertToLong()
            || version.longValue() < 1)) {
      throw SgmException.invalidRecord("version", "must be a positive whole number");
    }
    return record;
  }

  private static void validateId(JsonNode id) {
    if (id == null || id.isNull()) {
      throw SgmException.invalidRecord("id", "is required");
    }
    if (!id.isTextual()) {
      throw SgmException.invalidRecord("id", "must be a string");
    }
    String value = id.textValue();
    if (value.isEmpty()) {
      throw SgmException.invalidRecord("id", "must not be empty");
    }
    if (value.codePointCount(0, value.length()) > MAX_ID_LENGTH) {
      throw SgmException.invalidRecord("id", "is longer than " + MAX_ID_LENGTH + " characters");
    }
    if (value
        .codePoints()
        .anyMatch(
            c ->
                Character.isWhitespace(c)
                    || Character.isSpaceChar(c)
                    || Character.isISOControl(c))) {
      throw SgmException.invalidRecord("id", "must not contain whitespace or control characters");
    }
  }

  private static void validateType(JsonNode type) {
    if (type == null || type.isNull()) {
      throw SgmException.invalidRecord("type", "is required");
    }
    if (!type.isTextual()) {
      throw SgmException.invalidRecord("type", "must be a string");
    }
    String value = type.textValue();
    if (value.isEmpty()) {
      throw SgmException.invalidRecord("type", "must not be empty");
    }
    if (value.length() > MAX_TYPE_LENGTH) {
      throw SgmException.invalidRecord("type", "is longer than " + MAX_TYPE_LENGTH + " characters");
    }
    if (!TYPE.matcher(value).matches()) {
      throw SgmException.invalidRecord(
          "type",
          "'" + value + "' must match [a-z][a-z0-9_.-]* (lowercase, starting with a letter)");
    }
  }

  private static void validateProvenance(JsonNode provenance) {
    if (provenance == null || provenance.isNull()) {
      throw SgmException.invalidRecord("provenance", "is required");
    }
    if (!provenance.isObject()) {
      throw SgmException.invalidRecord("provenance", "must be an object");
    }
    JsonNode agent = provenance.get("agent");
    if (agent == null || agent.isNull()) {
      throw SgmException.invalidRecord("provenance.agent", "is required");
    }
    String agentProblem = agent.isTextual() ? agentNameProblem(agent.textValue()) : NOT_A_NAME;
    if (agentProblem != null) {
      throw SgmException.invalidRecord("provenance.agent", agentProblem);
    }
    for (String field : new String[] {"session", "origin", "principal"}) {
      JsonNode node = provenance.get(field);
      if (node != null && !node.isTextual()) {
        throw SgmException.invalidRecord("provenance." + field, "must be a string");
      }
    }
    timestamp((ObjectNode) provenance, "created_at", "provenance.created_at");
  }

  private static void validateReference(JsonNode reference) {
    if (reference == null) {
      return;
    }
    for (String field : new String[] {"kind", "hash", "encoding"}) {
      JsonNode node = reference.get(field);
      if (node != null && !node.isTextual()) {
        throw SgmException.invalidRecord("reference." + field, "must be a string");
      }
    }
    JsonNode bytes = reference.get("bytes");
    if (bytes != null && (!bytes.isIntegralNumber() || bytes.decimalValue().signum() < 0)) {
      throw SgmException.invalidRecord("reference.bytes", "must be a whole number of at least 0");
    }
  }

  private static void timestamp(ObjectNode object, String key, String field) {
    JsonNode node = object.get(key);
    if (node == null) {
      return;
    }
    if (!node.isTextual() || Timestamps.tryParse(node.textValue()) == null) {
      throw SgmException.invalidRecord(
          field, "must be an RFC 3339 date-time with an offset, such as 2026-10-10T18:21:47Z");
    }
  }

  private static void optionalString(ObjectNode record, String field) {
    JsonNode node = record.get(field);
    if (node != null && !node.isTextual()) {
      throw SgmException.invalidRecord(field, "must be a string");
    }
  }

  private static void stringArray(ObjectNode record, String field) {
    JsonNode node = record.get(field);
    if (node == null) {
      return;
    }
    if (!node.isArray()) {
      throw SgmException.invalidRecord(field, "must be an array of strings");
    }
    for (int i = 0; i < node.size(); i++) {
      if (!node.get(i).isTextual()) {
        throw SgmException.invalidRecord(field + "[" + i + "]", "must be a string");
      }
    }
  }

  /**
   * {@code invalid_request} naming {@code field} unless {@code agent} is a name an agent may have,
   * as {@code provenance.agent} must be: not blank, at most {@link #MAX_NAME_LENGTH} characters.
   */
  static void requireAgentName(String agent, String field) {
    String problem = agentNameProblem(agent);
    if (problem != null) {
      throw SgmException.invalidRequest(field, problem);
    }
  }

  /** Why {@code agent} is not a name an agent may have, or null when it is one. */
  private static String agentNameProblem(String agent) {
    if (agent == null || agent.isBlank()) {
      return NOT_A_NAME;
    }
    if (tooLong(agent)) {
      return "is longer than " + MAX_NAME_LENGTH + " characters";
    }
    return null;
  }

  private static boolean tooLong(String text) {
    return text.length() > MAX_NAME_LENGTH
        && text.codePointCount(0, text.length()) > MAX_NAME_LENGTH;
  }
}
