package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A way to invoke an SGM operation by its wire name with a JSON request and get the JSON response,
 * whatever carries it: in-process, HTTP, gRPC or MCP. Transports' clients implement it, and the
 * conformance kit tests any implementation through it.
 */
@FunctionalInterface
public interface SgmClient {
  /**
   * Invokes {@code operation} ({@code store}, {@code retrieve}, {@code tasks.claim}, ...) with
   * {@code request}.
   *
   * @return the operation's JSON response
   * @throws SgmException carrying the error object the implementation answered with
   */
  JsonNode call(String operation, JsonNode request);

  /**
   * A live watch of the change feed where this client offers one (the engine in this process);
   * empty otherwise, and {@link FollowedChanges#watch} then follows {@code changes} instead.
   */
  default java.util.Optional<ChangeStream> watch(ChangesRequest request) {
    return java.util.Optional.empty();
  }
}
