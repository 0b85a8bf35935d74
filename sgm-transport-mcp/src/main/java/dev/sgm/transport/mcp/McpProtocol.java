package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.util.List;
import java.util.stream.Stream;

/**
 * The words of the Model Context Protocol this server speaks: its revisions, the reserved {@code
 * _meta} keys of 2026-07-28, its error codes, and how one message's envelope is read to tell the
 * two eras apart. A message whose {@code params._meta} names {@value #MODERN} is served on its own
 * (2026-07-28 is stateless); any other message belongs to the 2025 revisions, which begin with
 * {@code initialize}.
 */
final class McpProtocol {
  /** The stateless revision: every request carries its version and capabilities in _meta. */
  static final String MODERN = "2026-07-28";

  /** The revisions that start with initialize, newest first. */
  static final List<String> LEGACY =
      List.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05");

  /** Every revision served, newest first. */
  static final List<String> VERSIONS = Stream.concat(Stream.of(MODERN), LEGACY.stream()).toList();

  static final String META_VERSION = "io.modelcontextprotocol/protocolVersion";
  static final String META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
  static final String META_CLIENT = "io.modelcontextprotocol/clientInfo";
  static final String META_SERVER = "io.modelcontextprotocol/serverInfo";
  static final String META_SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

  static final int PARSE_ERROR = -32700;
  static final int INVALID_REQUEST = -32600;
  static final int METHOD_NOT_FOUND = -32601;
  static final int INVALID_PARAMS = -32602;
  static final int INTERNAL_ERROR = -32603;
  static final int HEADER_MISMATCH = -32020;
  static final int UNSUPPORTED_VERSION = -32022;

  /** SGM's own code for a refused token or caller, outside the range the protocol reserves. */
  static final int UNAUTHORIZED = -31001;

  private McpProtocol() {}

  /** How a message's envelope places it. */
  enum Era {
    /** 2026-07-28: served on its own from what the message carries. */
    MODERN,
    /** The 2025 revisions: part of a session that initialize began. */
    LEGACY,
    /** A claim that cannot be served: {@link Envelope#error()} says why. */
    REFUSED
  }

  /**
   * A message's envelope as read: its era, the version it claims (2026-07-28 only), and for a
   * refused claim the error to answer with.
   */
  record Envelope(Era era, String version, ObjectNode error) {}

  /**
   * Reads the envelope of {@code message}: a request whose {@code params._meta} names a version is
   * of the era that version belongs to, once its required keys are there; one that does not is of
   * the 2025 revisions.
   */
  static Envelope envelope(JsonNode message) {
    JsonNode id = message.get("id");
    JsonNode params = message.get("params");
    JsonNode meta = params == null || !params.isObject() ? null : params.get("_meta");
    if (meta == null || meta.isNull()) {
      return new Envelope(Era.LEGACY, null, null);
    }
    if (!meta.isObject()) {
      return refused(id, INVALID_PARAMS, "params._meta must be an object", null);
    }
    JsonNode version = meta.get(META_VERSION);
    if (version == null) {
      return new Envelope(Era.LEGACY, null, null);
    }
    if (!version.isTextual()) {
      return refused(
          id, INVALID_PARAMS, "params._meta." + META_VERSION + " must be a string", null);
    }
    String asked = version.textValue();
    if (LEGACY.contains(asked)) {
      return new Envelope(Era.LEGACY, null, null);
    }
    if (!asked.equals(MODERN)) {
      ObjectNode data = Json.object();
      VERSIONS.forEach(data.putArray("supported")::add);
      data.put("requested", asked);
      return refused(
          id,
          UNSUPPORTED_VERSION,
          "Unsupported protocol version '" + asked + "'; this server speaks " + VERSIONS,
          data);
    }
    JsonNode capabilities = meta.get(META_CAPABILITIES);
    if (capabilities == null || !capabilities.isObject()) {
      ObjectNode data = Json.object();
      data.putObject("envelope").putArray("missing").add(META_CAPABILITIES);
      return refused(
          id,
          INVALID_PARAMS,
          "params._meta."
              + META_CAPABILITIES
              + (capabilities == null ? " is missing" : " must be an object")
              + "; 2026-07-28 requests carry it on every request ({} for none)",
          data);
    }
    JsonNode client = meta.get(META_CLIENT);
    if (client != null && !client.isObject()) {
      return refused(
          id, INVALID_PARAMS, "params._meta." + META_CLIENT + " must be an object", null);
    }
    return new Envelope(Era.MODERN, asked, null);
  }

  private static Envelope refused(JsonNode id, int code, String message, ObjectNode data) {
    return new Envelope(Era.REFUSED, null, error(id, code, message, data));
  }

  /**
   * Adds the 2026-07-28 envelope to a request's {@code params}: this version, no client
   * capabilities, and the client's name.
   */
  static void envelopeOf(ObjectNode params, String clientName) {
    ObjectNode meta = params.withObjectProperty("_meta");
    meta.put(META_VERSION, MODERN);
    meta.putObject(META_CAPABILITIES);
    meta.putObject(META_CLIENT).put("name", clientName).put("version", "1");
  }

  /**
   * A value as a header carries it: as is when it is printable ASCII without surrounding spaces,
   * else in the protocol's {@code =?base64?...?=} form.
   */
  static String headerValue(String value) {
    boolean plain = !value.isEmpty() && value.strip().equals(value);
    for (int i = 0; plain && i < value.length(); i++) {
      char c = value.charAt(i);
      plain = c >= 0x20 && c < 0x7f;
    }
    return plain && !value.startsWith("=?base64?")
        ? value
        : "=?base64?"
            + java.util.Base64.getEncoder()
                .encodeToString(value.getBytes(java.nio.charset.StandardCharsets.UTF_8))
            + "?=";
  }

  /**
   * The SGM error a JSON-RPC error stands for: the contract's error object where the server put it
   * in {@code data}, else {@code invalid_request} with the error's message.
   */
  static dev.sgm.api.SgmException failure(JsonNode error) {
    JsonNode data = error.path("data");
    if (data.path("error").path("code").isTextual()) {
      return dev.sgm.api.SgmException.fromJson(data);
    }
    return dev.sgm.api.SgmException.invalidRequest("params", error.path("message").asText());
  }

  /** A JSON-RPC error response. */
  static ObjectNode error(JsonNode id, int code, String message) {
    return error(id, code, message, null);
  }

  /** A JSON-RPC error response with data. */
  static ObjectNode error(JsonNode id, int code, String message, JsonNode data) {
    ObjectNode response = Json.object();
    response.put("jsonrpc", "2.0");
    response.set("id", id == null ? Json.object().nullNode() : id);
    ObjectNode error = response.putObject("error").put("code", code).put("message", message);
    if (data != null) {
      error.set("data", data);
    }
    return response;
  }

  /** A JSON-RPC result response. */
  static ObjectNode result(JsonNode id, JsonNode result) {
    ObjectNode response = Json.object();
    response.put("jsonrpc", "2.0");
    response.set("id", id);
    response.set("result", result);
    return response;
  }

  /** The HTTP status that a 2026-07-28 error of this code is answered with. */
  static int httpStatus(int code) {
    return switch (code) {
      case METHOD_NOT_FOUND -> 404;
      case PARSE_ERROR, INVALID_REQUEST, HEADER_MISMATCH, UNSUPPORTED_VERSION -> 400;
      default -> 200;
    };
  }
}
