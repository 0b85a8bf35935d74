package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One operation as discovery describes it: its wire name, a short human title, what it is for in
 * one sentence, the capability that offers it ({@code core} or a profile), the JSON Schema of its
 * request and of its response where one is declared, and its {@linkplain OperationEffects effects}.
 * Every transport and client builds its routes, tools, methods and help from these, so an operation
 * is described once, where it is declared.
 */
public record OperationDescriptor(
    String name,
    String title,
    String description,
    String capability,
    ObjectNode requestSchema,
    ObjectNode responseSchema,
    OperationEffects effects) {

  public OperationDescriptor {
    requestSchema = requestSchema == null ? JsonSchemas.object().build() : requestSchema;
    effects = effects == null ? OperationEffects.WRITE : effects;
    title = title == null || title.isBlank() ? titleOf(name) : title;
  }

  /** A title from a wire name when none is declared: {@code tasks.claim} is "Tasks claim". */
  static String titleOf(String name) {
    String words = name.replace('.', ' ').replace('_', ' ');
    return words.isEmpty()
        ? words
        : words.substring(0, 1).toUpperCase(Locale.ROOT) + words.substring(1);
  }

  /** The descriptor as it appears in discovery's {@code operations}. */
  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.put("name", name);
    json.put("title", title);
    json.put("description", description);
    json.put("capability", capability);
    json.set("effects", effects.toJson());
    json.set("request_schema", requestSchema.deepCopy());
    if (responseSchema != null) {
      json.set("response_schema", responseSchema.deepCopy());
    }
    return json;
  }

  /** A descriptor from discovery's JSON; absent schemas become an open object schema. */
  public static OperationDescriptor fromJson(JsonNode json) {
    JsonNode request = json.path("request_schema");
    JsonNode response = json.path("response_schema");
    return new OperationDescriptor(
        json.path("name").asText(),
        json.path("title").asText(null),
        json.path("description").asText(""),
        json.path("capability").asText(""),
        request.isObject() ? (ObjectNode) request : null,
        response.isObject() ? (ObjectNode) response : null,
        OperationEffects.fromJson(json.get("effects")));
  }

  /** Every operation a discovery document lists, in its order. */
  public static List<OperationDescriptor> listedIn(JsonNode discovery) {
    List<OperationDescriptor> operations = new ArrayList<>();
    for (JsonNode operation : discovery.path("operations")) {
      if (operation.path("name").isTextual()) {
        operations.add(fromJson(operation));
      }
    }
    return List.copyOf(operations);
  }
}
