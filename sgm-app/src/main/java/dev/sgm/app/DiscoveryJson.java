package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.Json;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.ProtocolVersion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** A discovery document read back from the JSON that a directory's holder answers with. */
final class DiscoveryJson {
  private DiscoveryJson() {}

  static DiscoveryDocument read(JsonNode json) {
    List<ProtocolVersion> supported = new ArrayList<>();
    json.path("supported_versions").forEach(v -> supported.add(ProtocolVersion.parse(v.asText())));
    List<String> capabilities = new ArrayList<>();
    json.path("capabilities").forEach(c -> capabilities.add(c.asText()));
    Map<String, List<String>> profiles = new LinkedHashMap<>();
    json.path("profiles")
        .properties()
        .forEach(
            profile -> {
              List<String> features = new ArrayList<>();
              profile.getValue().path("features").forEach(f -> features.add(f.asText()));
              profiles.put(profile.getKey(), features);
            });
    boolean resolvable = json.path("references").path("resolvable").asBoolean(false);
    List<DiscoveryDocument.ReferenceKind> kinds = new ArrayList<>();
    json.path("references")
        .path("kinds")
        .forEach(k -> kinds.add(new DiscoveryDocument.ReferenceKind(k.asText(), resolvable)));
    return new DiscoveryDocument(
        ProtocolVersion.parse(json.path("protocol_version").asText()),
        supported,
        json.path("implementation").asText(),
        json.path("implementation_version").asText(),
        capabilities,
        profiles,
        kinds,
        json.path("limits").path("max_record_bytes").asLong(),
        json.path("limits").path("max_page_size").asInt(),
        OperationDescriptor.listedIn(json),
        recordTypesOf(json),
        json.path("retrieval").isObject() ? (ObjectNode) json.get("retrieval") : null,
        json.path("secrets").isObject() ? (ObjectNode) json.get("secrets") : null);
  }

  private static Map<String, DiscoveryDocument.OwnedType> recordTypesOf(JsonNode json) {
    Map<String, DiscoveryDocument.OwnedType> types = new LinkedHashMap<>();
    json.path("record_types")
        .properties()
        .forEach(
            type ->
                types.put(
                    type.getKey(),
                    new DiscoveryDocument.OwnedType(
                        type.getValue().path("profile").asText(),
                        type.getValue().path("data_schema").isObject()
                            ? (ObjectNode) type.getValue().get("data_schema")
                            : Json.object())));
    return types;
  }
}
