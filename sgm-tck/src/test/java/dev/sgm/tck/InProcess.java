package dev.sgm.tck;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.util.Map;

/**
 * The engine in this JVM on an in-memory store, spoken to through JSON text as a transport would.
 */
final class InProcess {
  private static SgmRuntime runtime;

  private InProcess() {}

  static synchronized SgmRuntime runtime() {
    if (runtime == null) {
      runtime =
          SgmRuntime.open(ConfigLoader.load(Map.of(ConfigLoader.STORAGE_MEMORY, "true"), Map.of()));
      Runtime.getRuntime().addShutdownHook(new Thread(runtime::close));
    }
    return runtime;
  }

  private static SgmRuntime authenticating;

  /** An engine on an in-memory store with authentication on: callers present tokens. */
  static synchronized SgmRuntime authenticatingRuntime() {
    if (authenticating == null) {
      authenticating =
          SgmRuntime.open(
              ConfigLoader.load(
                  Map.of(ConfigLoader.STORAGE_MEMORY, "true", "auth.enabled", "true"), Map.of()));
      Runtime.getRuntime().addShutdownHook(new Thread(authenticating::close));
    }
    return authenticating;
  }

  private static SgmRuntime keepingSecrets;

  /** A client of an engine that stores credentials as written ({@code secrets.on-detect=allow}). */
  static synchronized SgmClient keepingSecrets() {
    if (keepingSecrets == null) {
      keepingSecrets =
          SgmRuntime.open(
              ConfigLoader.load(
                  Map.of(
                      ConfigLoader.STORAGE_MEMORY, "true", ConfigLoader.SECRETS_ON_DETECT, "allow"),
                  Map.of()));
      Runtime.getRuntime().addShutdownHook(new Thread(keepingSecrets::close));
    }
    return client(keepingSecrets, Caller.embedded());
  }

  /** The owner of {@link #authenticatingRuntime()}. */
  static SgmClient authenticatingOwner() {
    return client(authenticatingRuntime(), Caller.embedded());
  }

  /** A client of {@link #authenticatingRuntime()} presenting {@code token} on every call. */
  static SgmClient withToken(String token) {
    SgmRuntime sgm = authenticatingRuntime();
    return (operation, request) ->
        client(sgm, sgm.service().authenticate("embedded", "Bearer " + token, null))
            .call(operation, request);
  }

  /** A client that serialises every request and response, so nothing passes by reference. */
  static SgmClient client() {
    return client(Caller.embedded());
  }

  /** As {@link #client()}, for a principal whose only grant is {@code read} on {@code scope}. */
  static SgmClient readerOf(com.fasterxml.jackson.databind.node.ObjectNode scope) {
    return client(
        Caller.authenticated(
            "reader",
            "embedded",
            new dev.sgm.api.Grants(
                java.util.List.of(
                    new dev.sgm.api.Grants.Grant(
                        dev.sgm.api.Scope.fromJson(
                            scope, "scope", dev.sgm.api.ErrorCode.INVALID_REQUEST),
                        dev.sgm.api.Grants.Access.READ)),
                java.util.Set.of(dev.sgm.api.Grants.ANY_AGENT),
                dev.sgm.api.Sensitivity.SECRET)));
  }

  /** As {@link #client()}, for {@code caller}. */
  static SgmClient client(Caller caller) {
    return client(runtime(), caller);
  }

  private static SgmClient client(SgmRuntime sgm, Caller caller) {
    return (operation, request) -> {
      JsonNode wireRequest = Json.parse(Json.write(request));
      try {
        return Json.parse(Json.write(sgm.service().invoke(caller, operation, wireRequest)));
      } catch (SgmException e) {
        throw SgmException.fromJson(Json.parse(Json.write(e.toJson())));
      }
    };
  }
}
