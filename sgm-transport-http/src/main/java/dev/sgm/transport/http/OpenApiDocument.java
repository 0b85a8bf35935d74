package dev.sgm.transport.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.Operations;
import dev.sgm.api.ProtocolVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The OpenAPI 3.1 description, generated from the routes the handler serves and the operations
 * discovery describes (their summaries, request and response schemas as declared), with the record
 * and discovery schemas taken from the published JSON Schemas. Being generated from what is served,
 * it cannot list a route that is not served, or miss one that is.
 */
final class OpenApiDocument {
  /** The published schemas that declarations refer to by id, and their components here. */
  private static final Map<String, String> PUBLISHED =
      Map.of(
          JsonSchemas.MEMORY_SCHEMA,
          "Record",
          "https://sgm.dev/schema/0.1.0/capability.schema.json",
          "Discovery");

  private final ObjectNode document;

  OpenApiDocument(List<OperationDescriptor> operations, List<SgmHandler.Route> fixedRoutes) {
    ObjectNode doc = Json.object();
    doc.put("openapi", "3.1.0");
    doc.put("jsonSchemaDialect", "https://json-schema.org/draft/2020-12/schema");
    ObjectNode info = doc.putObject("info");
    info.put("title", "SGM");
    info.put("version", ProtocolVersion.CURRENT.toString());
    info.put(
        "description",
        "Shared, scoped memory for AI agents and developer tools. Every operation is POST /v1/{op} with"
            + " a JSON body; errors are {\"error\": {\"code\", \"message\", \"details\"}} with the status of"
            + " their code.");
    ObjectNode paths = doc.putObject("paths");
    for (SgmHandler.Route route : fixedRoutes) {
      ObjectNode op =
          paths
              .putObject(route.path())
              .putObject(route.method().toLowerCase(java.util.Locale.ROOT));
      op.put("operationId", route.path().replaceAll("[^A-Za-z0-9]+", "_").replaceAll("^_|_$", ""));
      op.put("summary", route.summary());
      ObjectNode responses = op.putObject("responses");
      ObjectNode ok = responses.putObject("200");
      ok.put("description", route.summary());
      switch (route.name()) {
        case "content" -> {
          ArrayNode params = op.putArray("parameters");
          ObjectNode hash = params.addObject();
          hash.put("name", "hash");
          hash.put("in", "path");
          hash.put("required", true);
          hash.putObject("schema").put("type", "string").put("pattern", "^[0-9a-f]{64}$");
          ObjectNode content = ok.putObject("content");
          content.putObject("text/plain").putObject("schema").put("type", "string");
          content
              .putObject("application/octet-stream")
              .putObject("schema")
              .put("type", "string")
              .put("contentMediaType", "application/octet-stream");
          responses.set("404", errorResponse("No content with that hash is held."));
        }
        case Operations.DISCOVER -> jsonContent(ok, "Discovery");
        case "health" -> jsonContent(ok, "Health");
        default ->
            ok.putObject("content")
                .putObject("application/json")
                .putObject("schema")
                .put("type", "object");
      }
      responses.set("default", errorResponse("An error object."));
    }
    for (OperationDescriptor operation : operations) {
      ObjectNode op = paths.putObject("/v1/" + operation.name()).putObject("post");
      op.put("operationId", operation.name().replace('.', '_'));
      op.put("summary", operation.description());
      op.putArray("tags").add(operation.capability());
      ObjectNode body = op.putObject("requestBody");
      body.put("required", false);
      schemaContent(body, operation.requestSchema());
      ObjectNode responses = op.putObject("responses");
      ObjectNode ok = responses.putObject("200");
      ok.put("description", "The operation's result.");
      schemaContent(
          ok,
          operation.responseSchema() == null
              ? Json.object().put("type", "object")
              : operation.responseSchema());
      responses.set("default", errorResponse("An error object, with the status of its code."));
    }
    ObjectNode components = doc.putObject("components");
    ObjectNode schemas = (ObjectNode) resource("openapi-components.json").get("schemas").deepCopy();
    schemas.set("Record", embedded("memory.schema.json", "Record"));
    schemas.set("Discovery", embedded("capability.schema.json", "Discovery"));
    components.set("schemas", schemas);
    this.document = doc;
  }

  ObjectNode document() {
    return document;
  }

  private static void jsonContent(ObjectNode parent, String schema) {
    parent
        .putObject("content")
        .putObject("application/json")
        .putObject("schema")
        .put("$ref", "#/components/schemas/" + schema);
  }

  /** A declared schema as a JSON body's schema, its references to published schemas made local. */
  private static void schemaContent(ObjectNode parent, ObjectNode declared) {
    ObjectNode schema = declared.deepCopy();
    schema.remove("$schema");
    rewritePublished(schema);
    parent.putObject("content").putObject("application/json").set("schema", schema);
  }

  private static void rewritePublished(JsonNode node) {
    if (node instanceof ObjectNode object) {
      JsonNode ref = object.get("$ref");
      if (ref != null && ref.isTextual()) {
        String target = ref.textValue();
        int hash = target.indexOf('#');
        String id = hash < 0 ? target : target.substring(0, hash);
        String component = PUBLISHED.get(id);
        if (component != null) {
          object.put(
              "$ref",
              "#/components/schemas/" + component + (hash < 0 ? "" : target.substring(hash + 1)));
        }
      }
      object.forEach(OpenApiDocument::rewritePublished);
    } else if (node != null && node.isArray()) {
      node.forEach(OpenApiDocument::rewritePublished);
    }
  }

  private static ObjectNode errorResponse(String description) {
    ObjectNode response = Json.object();
    response.put("description", description);
    jsonContent(response, "Error");
    return response;
  }

  /** A published JSON Schema as a component: its own {@code $defs} references re-rooted there. */
  private static JsonNode embedded(String file, String name) {
    ObjectNode schema = (ObjectNode) resource(file).deepCopy();
    schema.remove("$schema");
    schema.remove("$id");
    rewriteRefs(schema, "#/$defs/", "#/components/schemas/" + name + "/$defs/");
    return schema;
  }

  private static void rewriteRefs(JsonNode node, String from, String to) {
    if (node instanceof ObjectNode object) {
      JsonNode ref = object.get("$ref");
      if (ref != null && ref.isTextual() && ref.textValue().startsWith(from)) {
        object.set("$ref", TextNode.valueOf(to + ref.textValue().substring(from.length())));
      }
      object.forEach(child -> rewriteRefs(child, from, to));
    } else if (node != null && node.isArray()) {
      node.forEach(child -> rewriteRefs(child, from, to));
    }
  }

  private static JsonNode resource(String name) {
    try (InputStream in = OpenApiDocument.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("the resource " + name + " is missing from the build");
      }
      return Json.parse(in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
