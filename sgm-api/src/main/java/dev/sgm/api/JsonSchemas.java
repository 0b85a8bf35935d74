package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * Small builders of the JSON Schemas (draft 2020-12) with which operations declare their requests
 * and profiles the {@code data} of their record types, so that every declaration words the common
 * parts, such as a scope, the same way.
 */
public final class JsonSchemas {
  /** The dialect of every declared schema. */
  public static final String DIALECT = "https://json-schema.org/draft/2020-12/schema";

  /** The published record schema; {@code $ref} to it, or to its {@code $defs}, by this id. */
  public static final String MEMORY_SCHEMA = "https://sgm.dev/schema/0.1.0/memory.schema.json";

  private JsonSchemas() {}

  /** An object schema under construction. */
  public static ObjectSchema object() {
    return new ObjectSchema();
  }

  /**
   * A scope, inline: 1 to 8 keys, each to a non-empty string (memory.schema.json's {@code
   * $defs/scope}, repeated so that a request schema stands alone).
   */
  public static ObjectNode scope(String description) {
    ObjectNode scope = Json.object();
    scope.put("description", description);
    scope.put("type", "object");
    scope.put("minProperties", 1);
    scope.put("maxProperties", 8);
    scope.putObject("propertyNames").put("pattern", "^[a-z][a-z0-9_-]{0,31}$");
    scope
        .putObject("additionalProperties")
        .put("type", "string")
        .put("minLength", 1)
        .put("maxLength", 256);
    return scope;
  }

  /** A string. */
  public static ObjectNode string(String description) {
    return typed("string", description);
  }

  /** A non-empty string. */
  public static ObjectNode text(String description) {
    return string(description).put("minLength", 1);
  }

  /** One of the given strings. */
  public static ObjectNode oneOf(String description, List<String> values) {
    ObjectNode schema = string(description);
    values.forEach(schema.putArray("enum")::add);
    return schema;
  }

  /** A whole number from {@code min} to {@code max}. */
  public static ObjectNode integer(String description, long min, long max) {
    return typed("integer", description).put("minimum", min).put("maximum", max);
  }

  /** A number from {@code min} to {@code max}. */
  public static ObjectNode number(String description, double min, double max) {
    return typed("number", description).put("minimum", min).put("maximum", max);
  }

  /** True or false. */
  public static ObjectNode bool(String description) {
    return typed("boolean", description);
  }

  /** An array of strings. */
  public static ObjectNode strings(String description) {
    ObjectNode schema = typed("array", description);
    schema.putObject("items").put("type", "string");
    return schema;
  }

  /** An RFC 3339 date-time. */
  public static ObjectNode dateTime(String description) {
    return string(description).put("format", "date-time");
  }

  /** A reference to another schema, e.g. {@link #MEMORY_SCHEMA}. */
  public static ObjectNode ref(String uri) {
    return Json.object().put("$ref", uri);
  }

  /** A JSON object of anything. */
  public static ObjectNode anyObject(String description) {
    return typed("object", description);
  }

  private static ObjectNode typed(String type, String description) {
    ObjectNode schema = Json.object();
    schema.put("type", type);
    if (description != null) {
      schema.put("description", description);
    }
    return schema;
  }

  /** A builder of an object schema: its properties, which are required, and whether others are. */
  public static final class ObjectSchema {
    private final ObjectNode schema = Json.object();
    private final ObjectNode properties;
    private final ArrayNode required = Json.array();

    private ObjectSchema() {
      schema.put("$schema", DIALECT);
      schema.put("type", "object");
      properties = schema.putObject("properties");
    }

    /** What the object is, one sentence. */
    public ObjectSchema description(String description) {
      schema.put("description", description);
      return this;
    }

    /** An optional property. */
    public ObjectSchema optional(String name, JsonNode property) {
      properties.set(name, property);
      return this;
    }

    /** A required property. */
    public ObjectSchema required(String name, JsonNode property) {
      properties.set(name, property);
      required.add(name);
      return this;
    }

    /** Whether properties not listed are allowed (the default), or refused. */
    public ObjectSchema additionalProperties(boolean allowed) {
      schema.put("additionalProperties", allowed);
      return this;
    }

    /** The schema of a part of a larger one: without its own {@code $schema}. */
    public ObjectNode part() {
      ObjectNode built = build();
      built.remove("$schema");
      return built;
    }

    public ObjectNode build() {
      ObjectNode built = schema.deepCopy();
      if (!required.isEmpty()) {
        built.set("required", required.deepCopy());
      }
      return built;
    }
  }
}
