package dev.sgm.transport.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sgm.api.Json;
import dev.sgm.api.ProtocolVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

/**
 * The OpenAPI 3.1 description, generated from the routes the handler serves and the operations the
 * engine offers, with the record and discovery schemas taken from the published JSON Schemas. Being
 * generated from the route table, it cannot list a route that is not served, or miss one that is.
 */
final class OpenApiDocument {
  /** Request and response schema of each core operation. */
  private static final Map<String, String[]> CORE =
      Map.of(
          "discover", new String[] {"DiscoverRequest", "Discovery"},
          "store", new String[] {"StoreRequest", "StoreResponse"},
          "store_batch", new String[] {"StoreBatchRequest", "StoreBatchResponse"},
          "read", new String[] {"ReadRequest", "ReadResponse"},
          "retrieve", new String[] {"RetrieveRequest", "RetrieveResponse"},
          "delete", new String[] {"DeleteRequest", "DeleteResponse"},
          "put_content", new String[] {"PutContentRequest", "PutContentResponse"});

  private final ObjectNode document;

  OpenApiDocument(List<String> operations, List<SgmHandler.Route> fixedRoutes) {
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
        case "discover" -> jsonContent(ok, "Discovery");
        case "health" -> jsonContent(ok, "Health");
        default ->
            ok.putObject("content")
                .putObject("application/json")
                .putObject("schema")
                .put("type", "object");
      }
      responses.set("default", errorResponse("An error object."));
    }
    for (String operation : operations) {
      String[] schemas =
          CORE.getOrDefault(operation, new String[] {"ProfileRequest", "ProfileResponse"});
      ObjectNode op = paths.putObject("/v1/" + operation).putObject("post");
      op.put("operationId", operation.replace('.', '_'));
      op.put(
          "summary",
          CORE.containsKey(operation)
              ? "The " + operation + " operation."
              : "The " + operation + " operation of an active profile.");
      ObjectNode body = op.putObject("requestBody");
      body.put("required", false);
      jsonContent(body, schemas[0]);
      ObjectNode responses = op.putObject("responses");
      ObjectNode ok = responses.putObject("200");
      ok.put("description", "The operation's result.");
      jsonContent(ok, schemas[1]);
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
