package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Map;

/**
 * The capability discovery document: protocol versions, the implementation, the capabilities
 * assembled from the plugins present and enabled, each profile's features, the scope model,
 * reference support and limits; every operation offered (name, description, capability, request
 * schema) and every profile-owned record type (its profile and data schema); and how text is
 * searched.
 *
 * @param retrieval how text is searched: the modes offered, the default, the embedding model, and
 *     the state of the search index
 * @param secrets what a write does with a credential found in it ({@code on_detect}) and the kinds
 *     detected; null when the server does not say (older servers)
 */
public record DiscoveryDocument(
    ProtocolVersion protocolVersion,
    List<ProtocolVersion> supportedVersions,
    String implementation,
    String implementationVersion,
    List<String> capabilities,
    Map<String, List<String>> profileFeatures,
    List<ReferenceKind> referenceKinds,
    long maxRecordBytes,
    int maxPageSize,
    List<OperationDescriptor> operations,
    Map<String, OwnedType> recordTypes,
    ObjectNode retrieval,
    ObjectNode secrets) {

  /** A record type owned by a profile: the profile's name and the schema of the type's data. */
  public record OwnedType(String profile, ObjectNode dataSchema) {}

  /** A reference kind and whether this implementation resolves it. */
  public record ReferenceKind(String kind, boolean resolvable) {}

  public DiscoveryDocument {
    supportedVersions = List.copyOf(supportedVersions);
    capabilities = List.copyOf(capabilities);
    profileFeatures =
        java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(profileFeatures));
    referenceKinds = List.copyOf(referenceKinds);
    operations = List.copyOf(operations);
    recordTypes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(recordTypes));
  }

  /** This document with another {@code retrieval} object (the index's state changes). */
  public DiscoveryDocument withRetrieval(ObjectNode value) {
    return new DiscoveryDocument(
        protocolVersion,
        supportedVersions,
        implementation,
        implementationVersion,
        capabilities,
        profileFeatures,
        referenceKinds,
        maxRecordBytes,
        maxPageSize,
        operations,
        recordTypes,
        value,
        secrets);
  }

  /** True when the named capability is advertised. */
  public boolean supports(String capability) {
    return capabilities.contains(capability);
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.put("protocol_version", protocolVersion.toString());
    ArrayNode versions = json.putArray("supported_versions");
    supportedVersions.forEach(v -> versions.add(v.toString()));
    json.put("implementation", implementation);
    json.put("implementation_version", implementationVersion);
    capabilities.forEach(json.putArray("capabilities")::add);
    ObjectNode profiles = json.putObject("profiles");
    profileFeatures.forEach(
        (name, features) -> features.forEach(profiles.putObject(name).putArray("features")::add));
    ObjectNode scopeModel = json.putObject("scope_model");
    scopeModel.put("default_mode", ScopeMode.EXACT.wireName());
    ArrayNode modes = scopeModel.putArray("modes");
    for (ScopeMode mode : ScopeMode.values()) {
      modes.add(mode.wireName());
    }
    ObjectNode references = json.putObject("references");
    references.put("resolvable", referenceKinds.stream().anyMatch(ReferenceKind::resolvable));
    ArrayNode kinds = references.putArray("kinds");
    referenceKinds.forEach(k -> kinds.add(k.kind()));
    if (retrieval != null) {
      json.set("retrieval", retrieval);
    }
    if (secrets != null) {
      json.set("secrets", secrets);
    }
    ObjectNode limits = json.putObject("limits");
    limits.put("max_record_bytes", maxRecordBytes);
    limits.put("max_page_size", maxPageSize);
    limits.put("max_batch_records", BatchStoreRequest.MAX_RECORDS);
    ArrayNode described = json.putArray("operations");
    operations.forEach(op -> described.add(op.toJson()));
    ObjectNode types = json.putObject("record_types");
    recordTypes.forEach(
        (type, owned) -> {
          ObjectNode entry = types.putObject(type);
          entry.put("profile", owned.profile());
          entry.set("data_schema", owned.dataSchema().deepCopy());
        });
    return json;
  }
}
