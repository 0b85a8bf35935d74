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
  private volatile ObjectNode json;
  private volatile String text;

  private MemoryRecord(ObjectNode json, String text) {
    this.json = json;
    this.text = text;
  }

  /**
   * A fresh id for a record of {@code type} whose writer gave none: the type, today's date and 8
   * random hexadecimal digits, e.g. {@code note-2026-12-01-3f9a1c2e}. Readable in listings, and
   * unlikely to collide within a scope.
   */
  public static String newId(String type) {
    return type
        + "-"
        + java.time.LocalDate.now()
        + "-"
        + java.util.UUID.randomUUID().toString().substring(0, 8);
  }

  /**
   * True when two records are the same document: equal as JSON values, ignoring the server-managed
   * {@code version} and {@code updated_at}. Storing the same document again changes nothing;
   * restoring a snapshot leaves such a record alone.
   */
  public static boolean sameDocument(ObjectNode a, ObjectNode b) {
    ObjectNode left = a.deepCopy();
    ObjectNode right = b.deepCopy();
    for (ObjectNode node : java.util.List.of(left, right)) {
      node.remove("version");
      node.remove("updated_at");
    }
    return left.equals(right);
  }

  /**
   * Wraps a document already validated and completed by the engine. The caller must not change
   * {@code json} afterwards; use {@link #json()} for a copy to change.
   */
  public static MemoryRecord of(ObjectNode json) {
    return new MemoryRecord(Objects.requireNonNull(json, "json"), null);
  }

  /**
   * Wraps a stored document's JSON text. It is parsed when a field is first asked for, so a record
   * that is only passed on to a client as text is never parsed.
   */
  public static MemoryRecord ofStoredText(String text) {
    return new MemoryRecord(null, Objects.requireNonNull(text, "text"));
  }

  /** A copy of the whole document. */
  public ObjectNode json() {
    return view().deepCopy();
  }

  /** The document itself, for writing out without a copy. Do not modify. */
  public ObjectNode view() {
    ObjectNode tree = json;
    if (tree == null) {
      tree = (ObjectNode) Json.parse(text);
      json = tree;
    }
    return tree;
  }

  /**
   * False when the document has no top-level field {@code name}; true when it has, or may have. An
   * unparsed document is not parsed for this: its text has no {@code "name"} at all then.
   */
  boolean mayHave(String name) {
    ObjectNode tree = json;
    return tree != null ? tree.has(name) : text.contains("\"" + name + "\"");
  }

  /** The document as compact JSON text, exactly as stored. */
  public String text() {
    String value = text;
    if (value == null) {
      value = Json.write(json);
      text = value;
    }
    return value;
  }

  public String id() {
    return view().path("id").asText();
  }

  public String type() {
    return view().path("type").asText();
  }

  public Scope scope() {
    return Scope.fromJson(view().get("scope"), "scope", ErrorCode.INVALID_RECORD);
  }

  /** The revision counter, 1 on creation. */
  public long version() {
    return view().path("version").asLong();
  }

  public Instant createdAt() {
    return Timestamps.tryParse(view().path("created_at").asText(null));
  }

  public Instant updatedAt() {
    return Timestamps.tryParse(view().path("updated_at").asText(null));
  }

  public Optional<String> title() {
    return text("title");
  }

  public Optional<String> content() {
    return text("content");
  }

  public List<String> tags() {
    List<String> tags = new ArrayList<>();
    view().path("tags").forEach(t -> tags.add(t.asText()));
    return tags;
  }

  /** The provenance object. */
  public JsonNode provenance() {
    return view().path("provenance");
  }

  /** The reference object, when the record has one. */
  public Optional<JsonNode> reference() {
    JsonNode ref = view().get("reference");
    return ref != null && ref.isObject() ? Optional.of(ref) : Optional.empty();
  }

  /** The typed payload of a profile-owned type ({@code data}), or a missing node. */
  public JsonNode data() {
    return view().path("data");
  }

  private Optional<String> text(String field) {
    JsonNode node = view().get(field);
    return node != null && node.isTextual() ? Optional.of(node.textValue()) : Optional.empty();
  }

  /** The fully-qualified reference {@code {canonical scope}:{id}}. */
  public String qualifiedId() {
    return scope().qualify(id());
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MemoryRecord that && view().equals(that.view());
  }

  @Override
  public int hashCode() {
    return view().hashCode();
  }

  @Override
  public String toString() {
    return text();
  }
}
