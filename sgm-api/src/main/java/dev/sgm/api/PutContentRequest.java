package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Objects;

/**
 * The {@code put_content} operation's request: content to keep by its SHA-256 hash, text ({@code
 * content}) or bytes ({@code content_base64}).
 *
 * @param bytes the content
 * @param text true when it was sent as text, so it is UTF-8
 */
public record PutContentRequest(byte[] bytes, boolean text) {
  public PutContentRequest {
    Objects.requireNonNull(bytes, "bytes");
  }

  public static PutContentRequest ofText(String content) {
    return new PutContentRequest(content.getBytes(StandardCharsets.UTF_8), true);
  }

  public static PutContentRequest fromJson(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    String content = reader.optionalString("content");
    String base64 = reader.optionalString("content_base64");
    reader.finish();
    if ((content == null) == (base64 == null)) {
      throw SgmException.invalidRequest(
          "content", "exactly one of content or content_base64 must be given");
    }
    if (content != null) {
      return ofText(content);
    }
    try {
      return new PutContentRequest(Base64.getDecoder().decode(base64), false);
    } catch (IllegalArgumentException e) {
      throw SgmException.invalidRequest("content_base64", "is not valid base64: " + e.getMessage());
    }
  }

  public ObjectNode toJson() {
    ObjectNode json = Json.object();
    if (text) {
      json.put("content", new String(bytes, StandardCharsets.UTF_8));
    } else {
      json.put("content_base64", Base64.getEncoder().encodeToString(bytes));
    }
    return json;
  }
}
