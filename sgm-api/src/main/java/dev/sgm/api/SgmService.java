package dev.sgm.api;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Optional;

/**
 * The SGM operations, transport-neutral. Every transport translates its requests into calls on this
 * interface and its results back; validation, scope isolation, authorization and versioning are
 * decided behind it, once. Every method fails with {@link SgmException} carrying a contract error
 * code.
 */
public interface SgmService {
  /** {@code discover}: the capability document, or {@code unsupported_version}. */
  DiscoveryDocument discover(Caller caller, DiscoverRequest request);

  /** {@code store}: create or replace the record at its (scope, id). */
  StoreResult store(Caller caller, StoreRequest request);

  /** {@code store_batch}: store up to 1000 records atomically. */
  BatchStoreResult storeBatch(Caller caller, BatchStoreRequest request);

  /** {@code read}: one live record by exact scope and id, or {@code not_found}. */
  ReadResult read(Caller caller, ReadRequest request);

  /** {@code retrieve}: a page of the live records matching the query. */
  RetrieveResult retrieve(Caller caller, RetrieveQuery query);

  /** {@code delete}: remove (or, with history, hide) one record, or {@code not_found}. */
  DeleteResult delete(Caller caller, DeleteRequest request);

  /** {@code put_content}: keep content by its SHA-256 hash and return a reference to it. */
  ContentReference putContent(Caller caller, PutContentRequest request);

  /**
   * {@code changes}: committed writes of the request's scopes after its cursor, in commit order, or
   * {@code cursor_expired} when the cursor is older than the change log keeps.
   */
  default ChangesResult changes(Caller caller, ChangesRequest request) {
    return ChangesResult.fromJson(invoke(caller, Operations.CHANGES, request.toJson()));
  }

  /**
   * A live watch of {@code request}'s scopes and types from its cursor (or from the present), in
   * commit order: the streaming form of {@link #changes}. Fails with {@code unsupported_capability}
   * where watching is not offered.
   */
  default ChangeStream watch(Caller caller, ChangesRequest request) {
    throw new SgmException(
        ErrorCode.UNSUPPORTED_CAPABILITY, "this service offers no watch streams");
  }

  /** Content kept by {@code put_content}, by hash. */
  Optional<StoredContent> getContent(Caller caller, String hash);

  /**
   * Invokes an operation by its wire name with a JSON request and returns the JSON response: the
   * core ops ({@code store}, {@code retrieve}, ...) and every active profile's ops ({@code
   * tasks.claim}, ...). An operation of an absent or disabled profile fails with {@code
   * unsupported_capability}. Transports that speak JSON route every call through here.
   */
  JsonNode invoke(Caller caller, String operation, JsonNode request);

  /**
   * The caller a request comes from, given its {@code Authorization} header (null when absent) and
   * the address it came from (null when the transport has none): the local owner while
   * authentication is off; otherwise the token's principal, or {@code unauthenticated}; or {@code
   * unavailable} with a {@linkplain SgmException#retryAfter() retry delay} while that address is
   * refused after too many failed attempts. Transports ask here once per request and pass the
   * caller on.
   */
  default Caller authenticate(String origin, String authorization, String clientAddress) {
    return Caller.anonymous(origin);
  }

  /** True when requests must carry a token ({@link #authenticate} refuses those without). */
  default boolean authenticates() {
    return false;
  }

  /**
   * Whether this service can answer now ({@code GET /healthz}): {@code {"status": "ok"}}, or {@code
   * "unavailable"} while something it needs (its storage) is out of reach, with what was checked.
   */
  default JsonNode health() {
    return Json.object().put("status", "ok");
  }

  /** The wire names of every operation {@link #invoke} accepts now, core first. */
  java.util.List<String> operations();
}
