package dev.sgm.tck;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The one thing an implementation under test provides: a way to invoke an SGM operation by its wire
 * name with a JSON request and get the JSON response. Each transport implements it (in-process,
 * HTTP, gRPC, MCP), and so can any other implementation's adapter.
 */
public interface SgmClient {
  /**
   * Invokes {@code operation} ({@code store}, {@code retrieve}, ...) with {@code request}.
   *
   * @return the operation's JSON response
   * @throws dev.sgm.api.SgmException carrying the error object the implementation answered with
   */
  JsonNode call(String operation, JsonNode request);
}
