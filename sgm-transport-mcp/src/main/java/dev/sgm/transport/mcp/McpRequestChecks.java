package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.spi.Config;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/**
 * The checks of a Streamable HTTP request's headers before it runs: that it comes from this
 * machine, and that the headers mirroring a 2026-07-28 body agree with it.
 */
final class McpRequestChecks {
  private static final Set<String> LOCAL = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

  /** The methods whose target travels in {@code Mcp-Name} too: the body field it mirrors. */
  private static final Map<String, String> NAMED =
      Map.of("tools/call", "name", "prompts/get", "name", "resources/read", "uri");

  /**
   * The names a request's Host and Origin may give: this machine's, the address listened on, and
   * {@code mcp.allowed-hosts} (comma-separated) for a server reached by name off loopback.
   */
  private final Set<String> allowedHosts;

  McpRequestChecks(Config config, String host) {
    Set<String> allowed = new HashSet<>(LOCAL);
    allowed.add(host);
    for (String name : config.get("mcp.allowed-hosts", "").split(",")) {
      if (!name.isBlank()) {
        allowed.add(name.strip().toLowerCase(Locale.ROOT));
      }
    }
    this.allowedHosts = Set.copyOf(allowed);
  }

  /** Origin (when sent) and Host must name this machine: the browser-borne DNS-rebinding guard. */
  boolean local(Request request) {
    String origin = request.getHeaders().get(HttpHeader.ORIGIN);
    if (origin != null && !origin.equals("null")) {
      try {
        String originHost = URI.create(origin).getHost();
        if (originHost == null || !allowedHosts.contains(originHost)) {
          return false;
        }
      } catch (IllegalArgumentException e) {
        return false;
      }
    }
    String hostHeader = request.getHeaders().get(HttpHeader.HOST);
    if (hostHeader == null) {
      return true;
    }
    String name =
        hostHeader.startsWith("[")
            ? hostHeader.substring(0, hostHeader.indexOf(']') + 1)
            : hostHeader.split(":")[0];
    return allowedHosts.contains(name.toLowerCase(Locale.ROOT));
  }

  /**
   * The headers that mirror the body (2026-07-28), checked against it: {@code MCP-Protocol-Version}
   * and {@code Mcp-Method} on every request, and {@code Mcp-Name} where the method names a target.
   * Null when they agree; else the {@code -32020} error to answer with. A header that disagrees is
   * refused in either era; a 2025 request need not send them.
   */
  static ObjectNode headerMismatch(Request request, JsonNode body, McpProtocol.Envelope envelope) {
    JsonNode id = body.get("id");
    boolean isRequest = id != null && body.has("method");
    // The version the body claims, whether or not it is served: a header that disagrees with
    // it is a mismatch before it is an unsupported version.
    JsonNode claim = body.path("params").path("_meta").path(McpProtocol.META_VERSION);
    String claimed = claim.isTextual() ? claim.textValue() : null;
    boolean modern = envelope.era() != McpProtocol.Era.LEGACY && claimed != null;
    String method = body.path("method").asText(null);
    String version = header(request, "MCP-Protocol-Version");
    if (modern && isRequest) {
      if (version == null || !version.equals(claimed)) {
        return mismatch(
            id, "MCP-Protocol-Version", version, claimed, "must name the version of params._meta");
      }
    } else if (isRequest
        && McpProtocol.MODERN.equals(version)
        && envelope.era() == McpProtocol.Era.LEGACY) {
      ObjectNode data = Json.object();
      data.putObject("envelope")
          .putArray("missing")
          .add(McpProtocol.META_VERSION)
          .add(McpProtocol.META_CAPABILITIES);
      return McpProtocol.error(
          id,
          McpProtocol.INVALID_PARAMS,
          "the MCP-Protocol-Version header names "
              + McpProtocol.MODERN
              + ", but params._meta does not carry "
              + McpProtocol.META_VERSION
              + " and "
              + McpProtocol.META_CAPABILITIES,
          data);
    }
    String methodHeader = header(request, "Mcp-Method");
    if (methodHeader != null ? !methodHeader.equals(method) : modern && isRequest) {
      return mismatch(id, "Mcp-Method", methodHeader, method, "must name the body's method");
    }
    String field = method == null ? null : NAMED.get(method);
    String nameHeader = header(request, "Mcp-Name");
    if (field != null) {
      JsonNode target = body.path("params").path(field);
      String expected = target.isTextual() ? target.textValue() : null;
      if (nameHeader != null
          ? !nameHeader.equals(expected)
          : modern && isRequest && expected != null) {
        return mismatch(
            id, "Mcp-Name", nameHeader, expected, "must name the body's params." + field);
      }
    }
    return null;
  }

  private static ObjectNode mismatch(
      JsonNode id, String header, String sent, String body, String rule) {
    ObjectNode data = Json.object();
    ObjectNode detail = data.putObject("mismatch");
    detail.put("header", header);
    detail.put("sent", sent);
    detail.put("body", body);
    return McpProtocol.error(
        id,
        McpProtocol.HEADER_MISMATCH,
        "Header mismatch: "
            + header
            + (sent == null ? " is missing" : " is '" + sent + "'")
            + "; it "
            + rule
            + (body == null ? "" : " ('" + body + "')"),
        data);
  }

  /** A header's value, trimmed, with the protocol's Base64 form decoded; null when absent. */
  private static String header(Request request, String name) {
    String value = request.getHeaders().get(name);
    if (value == null) {
      return null;
    }
    value = value.strip();
    if (value.startsWith("=?base64?") && value.endsWith("?=") && value.length() >= 11) {
      try {
        return new String(
            Base64.getDecoder().decode(value.substring(9, value.length() - 2)),
            StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        return value;
      }
    }
    return value;
  }
}
