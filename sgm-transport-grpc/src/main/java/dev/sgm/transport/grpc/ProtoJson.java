package dev.sgm.transport.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.sgm.api.Json;
import dev.sgm.api.RawNumberNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts between the SGM JSON documents and the {@code sgm.v1} messages, following the package's
 * conventions ({@code x_json} fields, {@code extensions_json}, {@code field_order}, scopes as
 * ordered entries), so that a document survives the trip exactly: same fields, same order, same
 * number text. One converter for every message, driven by the message descriptors.
 */
final class ProtoJson {
  private static final String ORDER = "field_order";
  private static final String EXTENSIONS = "extensions_json";
  private static final String SCOPE_ENTRY = "ScopeEntry";

  private ProtoJson() {}

  /**
   * Fills {@code builder} from a JSON object; what does not fit a typed field goes to extensions.
   */
  static <B extends Message.Builder> B fromJson(JsonNode json, B builder) {
    Descriptor type = builder.getDescriptorForType();
    FieldDescriptor order = type.findFieldByName(ORDER);
    FieldDescriptor extensions = type.findFieldByName(EXTENSIONS);
    ObjectNode rest = Json.object();
    if (json == null || !json.isObject()) {
      return builder;
    }
    for (Map.Entry<String, JsonNode> field : json.properties()) {
      String name = field.getKey();
      JsonNode value = field.getValue();
      if (order != null) {
        builder.addRepeatedField(order, name);
      }
      FieldDescriptor asJson = type.findFieldByName(name + "_json");
      FieldDescriptor typed = type.findFieldByName(name);
      if (name.equals(ORDER) || name.equals(EXTENSIONS) || name.endsWith("_json")) {
        rest.set(name, value);
      } else if (asJson != null && !value.isNull()) {
        builder.setField(asJson, Json.write(value));
      } else if (typed == null || value.isNull() || !set(builder, typed, value)) {
        rest.set(name, value);
      }
    }
    if (!rest.isEmpty() && extensions != null) {
      builder.setField(extensions, Json.write(rest));
    }
    return builder;
  }

  /** Sets a typed field when the JSON value fits it; false leaves the field alone. */
  private static boolean set(Message.Builder builder, FieldDescriptor field, JsonNode value) {
    if (field.isRepeated()) {
      if (field.getType() == FieldDescriptor.Type.MESSAGE
          && field.getMessageType().getName().equals(SCOPE_ENTRY)) {
        if (!value.isObject() || !allText(value)) {
          return false;
        }
        for (Map.Entry<String, JsonNode> pair : value.properties()) {
          builder.addRepeatedField(field, scopeEntry(pair.getKey(), pair.getValue().textValue()));
        }
        return true;
      }
      if (!value.isArray()) {
        return false;
      }
      List<Object> items = new ArrayList<>();
      for (JsonNode item : value) {
        Object converted = scalar(builder, field, item);
        if (converted == null) {
          return false;
        }
        items.add(converted);
      }
      items.forEach(item -> builder.addRepeatedField(field, item));
      return true;
    }
    Object converted = scalar(builder, field, value);
    if (converted == null) {
      return false;
    }
    builder.setField(field, converted);
    return true;
  }

  private static Object scalar(Message.Builder builder, FieldDescriptor field, JsonNode value) {
    return switch (field.getType()) {
      case STRING -> value.isTextual() ? value.textValue() : null;
      case BOOL -> value.isBoolean() ? value.booleanValue() : null;
      // Only computed numbers (scores) are doubles; a client's numbers travel as JSON text.
      case DOUBLE ->
          value.isNumber() && Double.isFinite(value.doubleValue()) ? value.doubleValue() : null;
      case INT64 -> exactLong(value, Long.MIN_VALUE, Long.MAX_VALUE);
      case INT32 -> {
        Long v = exactLong(value, Integer.MIN_VALUE, Integer.MAX_VALUE);
        yield v == null ? null : v.intValue();
      }
      case MESSAGE ->
          value.isObject() ? fromJson(value, builder.newBuilderForField(field)).build() : null;
      default -> null;
    };
  }

  /** A whole number written plainly (so its text comes back identical), within range. */
  private static Long exactLong(JsonNode value, long min, long max) {
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      return null;
    }
    long v = value.longValue();
    return v >= min && v <= max && Long.toString(v).equals(value.asText()) ? v : null;
  }

  private static boolean allText(JsonNode object) {
    for (JsonNode value : object) {
      if (!value.isTextual()) {
        return false;
      }
    }
    return true;
  }

  private static ScopeEntry scopeEntry(String key, String value) {
    return ScopeEntry.newBuilder().setKey(key).setValue(value).build();
  }

  /**
   * The JSON document of a message: fields in {@code field_order} when given, else declared order.
   */
  static ObjectNode toJson(Message message) {
    Descriptor type = message.getDescriptorForType();
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    List<String> order = new ArrayList<>();
    ObjectNode extensions = null;
    for (FieldDescriptor field : type.getFields()) {
      String name = field.getName();
      if (name.equals(ORDER)) {
        for (int i = 0; i < message.getRepeatedFieldCount(field); i++) {
          order.add((String) message.getRepeatedField(field, i));
        }
      } else if (name.equals(EXTENSIONS)) {
        String text = (String) message.getField(field);
        if (!text.isEmpty()) {
          extensions = (ObjectNode) Json.parse(text);
        }
      } else if (name.endsWith("_json")) {
        String text = (String) message.getField(field);
        if (!text.isEmpty()) {
          fields.put(name.substring(0, name.length() - "_json".length()), Json.parse(text));
        }
      } else if (field.isRepeated()) {
        int count = message.getRepeatedFieldCount(field);
        // Without a field order an empty list is still a list (an empty page has "records": []);
        // with one, the order says whether the client wrote it.
        if (count > 0 || type.findFieldByName(ORDER) == null) {
          fields.put(name, repeated(message, field, count));
        }
      } else if (!field.hasPresence() || message.hasField(field)) {
        fields.put(name, value(field, message.getField(field)));
      }
    }
    ObjectNode json = Json.object();
    for (String name : order) {
      JsonNode value = fields.remove(name);
      if (value == null) {
        FieldDescriptor field = type.findFieldByName(name);
        if (extensions != null && extensions.has(name)) {
          value = extensions.remove(name);
        } else if (field != null && field.isRepeated() && !name.equals(ORDER)) {
          // Named in the order but empty: the client wrote an empty list.
          value = repeated(message, field, 0);
        }
      }
      if (value != null) {
        json.set(name, value);
      }
    }
    fields.forEach(json::set);
    if (extensions != null) {
      extensions.properties().forEach(e -> json.set(e.getKey(), e.getValue()));
    }
    return json;
  }

  private static JsonNode repeated(Message message, FieldDescriptor field, int count) {
    if (field.getType() == FieldDescriptor.Type.MESSAGE
        && field.getMessageType().getName().equals(SCOPE_ENTRY)) {
      ObjectNode scope = Json.object();
      for (int i = 0; i < count; i++) {
        ScopeEntry entry = (ScopeEntry) message.getRepeatedField(field, i);
        scope.put(entry.getKey(), entry.getValue());
      }
      return scope;
    }
    ArrayNode array = Json.array();
    for (int i = 0; i < count; i++) {
      array.add(value(field, message.getRepeatedField(field, i)));
    }
    return array;
  }

  private static JsonNode value(FieldDescriptor field, Object value) {
    return switch (field.getType()) {
      case STRING -> TextNode.valueOf((String) value);
      case BOOL -> BooleanNode.valueOf((Boolean) value);
      case INT64, INT32 -> RawNumberNode.of(((Number) value).longValue());
      case DOUBLE -> DoubleNode.valueOf((Double) value);
      case MESSAGE -> toJson((Message) value);
      default -> TextNode.valueOf(String.valueOf(value));
    };
  }
}
