package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.BatchStoreResult;
import dev.sgm.api.Caller;
import dev.sgm.api.ContentReference;
import dev.sgm.api.DeleteRequest;
import dev.sgm.api.DeleteResult;
import dev.sgm.api.DiscoverRequest;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.PutContentRequest;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.ReadResult;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.StoreResult;
import dev.sgm.api.StoredContent;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * A shared directory's operations as a service for transports, wherever the store is held: the
 * engine's own service while this process holds it, else the holder's. Away from the holder,
 * transports reach operations by wire name ({@link SgmService#invoke}), {@code discover}, {@code
 * operations} and {@code getContent}, as every transport does; the typed methods answer {@code
 * unsupported_capability} there.
 */
final class FollowingService implements SgmService {
  private final SharedDirectory shared;

  FollowingService(SharedDirectory shared) {
    this.shared = shared;
  }

  /** Asked on every call: after a hand-over, the store may be held in this process. */
  private SgmService local() {
    return shared.heldService();
  }

  private <T> T away(String operation) {
    throw new SgmException(
        ErrorCode.UNSUPPORTED_CAPABILITY,
        operation
            + " is reached by its wire name (invoke) while another process holds "
            + shared.directory());
  }

  @Override
  public DiscoveryDocument discover(Caller caller, DiscoverRequest request) {
    SgmService local = local();
    return local != null
        ? local.discover(caller, request)
        : DiscoveryJson.read(shared.call(caller.origin(), Operations.DISCOVER, request.toJson()));
  }

  @Override
  public StoreResult store(Caller caller, StoreRequest request) {
    SgmService local = local();
    return local != null ? local.store(caller, request) : away(Operations.STORE);
  }

  @Override
  public BatchStoreResult storeBatch(Caller caller, BatchStoreRequest request) {
    SgmService local = local();
    return local != null ? local.storeBatch(caller, request) : away(Operations.STORE_BATCH);
  }

  @Override
  public ReadResult read(Caller caller, ReadRequest request) {
    SgmService local = local();
    return local != null ? local.read(caller, request) : away(Operations.READ);
  }

  @Override
  public RetrieveResult retrieve(Caller caller, RetrieveQuery query) {
    SgmService local = local();
    return local != null ? local.retrieve(caller, query) : away(Operations.RETRIEVE);
  }

  @Override
  public DeleteResult delete(Caller caller, DeleteRequest request) {
    SgmService local = local();
    return local != null ? local.delete(caller, request) : away(Operations.DELETE);
  }

  @Override
  public ContentReference putContent(Caller caller, PutContentRequest request) {
    SgmService local = local();
    return local != null ? local.putContent(caller, request) : away(Operations.PUT_CONTENT);
  }

  @Override
  public Optional<StoredContent> getContent(Caller caller, String hash) {
    SgmService local = local();
    if (local != null) {
      return local.getContent(caller, hash);
    }
    ObjectNode request = Json.object().put("hash", hash);
    JsonNode found = shared.call(caller.origin(), LocalChannel.CONTENT, request);
    if (found == null || found.isNull()) {
      return Optional.empty();
    }
    return Optional.of(
        new StoredContent(
            new ContentReference(
                found.path("hash").asText(),
                found.path("encoding").asText(),
                found.path("bytes").asLong()),
            Base64.getDecoder().decode(found.path("base64").asText())));
  }

  @Override
  public JsonNode invoke(Caller caller, String operation, JsonNode request) {
    return shared.call(caller.origin(), operation, request);
  }

  @Override
  public List<String> operations() {
    return shared.operations();
  }
}
