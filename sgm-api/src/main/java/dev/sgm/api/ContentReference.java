package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A {@code content-hash} reference to content kept by {@code put_content}: what a record's {@code
 * reference} field carries to point at it.
 *
 * @param hash lowercase hex SHA-256 of the bytes
 * @param encoding {@code utf-8} for text, {@code binary} for bytes
 * @param bytes the length in bytes
 */
public record ContentReference(String hash, String encoding, long bytes) {
  /** The only reference kind this implementation resolves. */
  public static final String KIND = "content-hash";

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    json.put("kind", KIND);
    json.put("hash", hash);
    json.put("encoding", encoding);
    json.put("bytes", bytes);
    return json;
  }

  /** The {@code put_content} response: {@code {"reference": {...}}}. */
  public ObjectNode toResponseJson() {
    ObjectNode json = Json.object();
    json.set("reference", toJson());
    return json;
  }
}
