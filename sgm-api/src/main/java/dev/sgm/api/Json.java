package dev.sgm.api;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Lossless JSON for SGM: parsing keeps key order and every number's exact text ({@link
 * RawNumberNode}), writing gives the same text back. Every module reads and writes wire JSON
 * through here.
 */
public final class Json {
  /** Deeper documents are refused rather than risking the stack. */
  public static final int MAX_NESTING_DEPTH = 256;

  private static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(MAX_NESTING_DEPTH)
                  .maxNumberLength(1000)
                  .build())
          .enable(com.fasterxml.jackson.core.StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private static final ObjectMapper MAPPER = createMapper();

  private Json() {}

  private static ObjectMapper createMapper() {
    SimpleModule module = new SimpleModule("sgm-lossless-json");
    JsonDeserializer<JsonNode> tree =
        new JsonDeserializer<>() {
          @Override
          public JsonNode deserialize(JsonParser parser, DeserializationContext context)
              throws IOException {
            return readValue(parser);
          }

          @Override
          public JsonNode getNullValue(DeserializationContext context) {
            return NullNode.getInstance();
          }
        };
    module.addDeserializer(JsonNode.class, tree);
    return new ObjectMapper(FACTORY).registerModule(module);
  }

  /** An ObjectMapper that reads trees losslessly; for binding and writing. */
  public static ObjectMapper mapper() {
    return MAPPER;
  }

  /** A new empty object node. */
  public static ObjectNode object() {
    return JsonNodeFactory.instance.objectNode();
  }

  /** A new empty array node. */
  public static ArrayNode array() {
    return JsonNodeFactory.instance.arrayNode();
  }

  /**
   * Parses one JSON document, losslessly.
   *
   * @throws SgmException {@code invalid_request} saying where the text stops being JSON
   */
  public static JsonNode parse(String text) {
    try (JsonParser parser = FACTORY.createParser(text)) {
      return parseDocument(parser);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Parses one UTF-8 JSON document, losslessly; malformed UTF-8 is refused like malformed JSON. */
  public static JsonNode parse(byte[] utf8) {
    try (JsonParser parser = FACTORY.createParser(utf8)) {
      return parseDocument(parser);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static JsonNode parseDocument(JsonParser parser) throws IOException {
    try {
      if (parser.nextToken() == null) {
        throw SgmException.invalidRequest("body", "empty document, expected JSON");
      }
      JsonNode node = readValue(parser);
      if (parser.nextToken() != null) {
        throw SgmException.invalidRequest(
            "body", "unexpected content after the JSON document at " + location(parser));
      }
      return node;
    } catch (JsonProcessingException e) {
      throw SgmException.invalidRequest(
          "body", "malformed JSON at " + location(parser) + ": " + e.getOriginalMessage());
    } catch (java.io.CharConversionException e) {
      throw SgmException.invalidRequest("body", "invalid UTF-8: " + e.getMessage());
    }
  }

  private static String location(JsonParser parser) {
    var location = parser.currentLocation();
    return "line " + location.getLineNr() + ", column " + location.getColumnNr();
  }

  /** Reads the value at the parser's current token. */
  static JsonNode readValue(JsonParser parser) throws IOException {
    JsonToken token = parser.currentToken();
    switch (token) {
      case START_OBJECT -> {
        ObjectNode object = object();
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
          String name = parser.currentName();
          parser.nextToken();
          object.set(name, readValue(parser));
        }
        return object;
      }
      case START_ARRAY -> {
        ArrayNode array = array();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
          array.add(readValue(parser));
        }
        return array;
      }
      case VALUE_STRING -> {
        return TextNode.valueOf(parser.getText());
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        return new RawNumberNode(parser.getText());
      }
      case VALUE_TRUE -> {
        return BooleanNode.TRUE;
      }
      case VALUE_FALSE -> {
        return BooleanNode.FALSE;
      }
      case VALUE_NULL -> {
        return NullNode.getInstance();
      }
      default ->
          throw new com.fasterxml.jackson.core.JsonParseException(
              parser, "unexpected token " + token);
    }
  }

  /** Writes compact JSON, numbers exactly as they were read. */
  public static String write(JsonNode node) {
    try {
      return MAPPER.writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree could not be written", e);
    }
  }

  /** Writes compact UTF-8 JSON. */
  public static byte[] writeBytes(JsonNode node) {
    return write(node).getBytes(StandardCharsets.UTF_8);
  }

  /** Writes indented JSON for people to read. */
  public static String writePretty(JsonNode node) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree could not be written", e);
    }
  }

  /** Parses text that must be a JSON object; {@code field} names it in the error otherwise. */
  public static ObjectNode parseObject(String text, String field) {
    JsonNode node = parse(text);
    if (!node.isObject()) {
      throw SgmException.invalidRequest(field, "must be a JSON object");
    }
    return (ObjectNode) node;
  }
}
