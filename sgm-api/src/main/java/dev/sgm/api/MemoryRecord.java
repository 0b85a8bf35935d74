package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A memory record: the JSON document exactly as stored (client fields in the client's order, then
 * the server-set fields), with typed views of the fields the protocol defines. The document is kept
 * as a lossless tree, so what a client sent comes back identical.
 */
public final class MemoryRecord {
  private final ObjectNode json;

  private MemoryRecord(ObjectNode json) {
    this.json = json;
  }

  /**
   * Wraps a document already validated and completed by the engine. The caller must not change
   * {@code json} afterwards; use {@link #json()} for a copy to change.
   */
  public static MemoryRecord of(ObjectNode json) {
    return new MemoryRecord(Objects.requireNonNull(json, "json"));
  }

  /** A copy of the whole document. */
  public ObjectNode json() {
    return json.deepCopy();
  }

  /** The document itself, for writing out without a copy. Do not modify. */
  public ObjectNode view() {
    return json;
  }

  public String id() {
    return json.path("id").asText();
  }

  public String type() {
    return json.path("type").asText();
  }

  public Scope scope() {
    return Scope.fromJson(json.get("scope"), "scope", ErrorCode.INVALID_RECORD);
  }

  /** The revision counter, 1 on creation. */
  public long version() {
    return json.path("version").asLong();
  }

  public Instant createdAt() {
    return Timestamps.tryParse(json.path("created_at").asText(null));
  }

  public Instant updatedAt() {
    return Timestamps.tryParse(json.path("updated_at").asText(null));
  }

  public Optional<String> title() {
    return text("title");
  }

  public Optional<String> content() {
    return text("content");
  }

  public List<String> tags() {
    List<String> tags = new ArrayList<>();
    json.path("tags").forEach(t -> tags.add(t.asText()));
    return tags;
  }

  /** The provenance object. */
  public JsonNode provenance() {
    return json.path("provenance");
  }

  /** The reference object, when the record has one. */
  public Optional<JsonNode> reference() {
    JsonNode ref = json.get("reference");
    return ref != null && ref.isObject() ? Optional.of(ref) : Optional.empty();
  }

  /** The typed payload of a profile-owned type ({@code data}), or a missing node. */
  public JsonNode data() {
    return json.path("data");
  }

  private Optional<String> text(String field) {
    JsonNode node = json.get(field);
    return node != null && node.isTextual() ? Optional.of(node.textValue()) : Optional.empty();
  }

  /** The fully-qualified reference {@code {canonical scope}:{id}}. */
  public String qualifiedId() {
    return scope().qualify(id());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MemoryRecord that && json.equals(that.json);
  }

  @Override
  public int hashCode() {
    return json.hashCode();
  }

  @Override
  public String toString() {
    return Json.write(json);
  }
}
