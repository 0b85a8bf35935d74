package dev.sgm.transport.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * A client of the {@code sgm.v1} services: {@code call("retrieve", query)} converts the JSON query
 * to the typed message, calls {@code Memory.Retrieve} with a deadline, and converts the answer
 * back. One instance keeps one channel; it is safe to share between threads. Close it when done.
 */
public final class SgmGrpcClient implements SgmClient, AutoCloseable {
  private final ManagedChannel channel;
  private final Duration deadline;

  /** A client of the server at {@code target}: {@code host:port} or {@code grpc://host:port}. */
  public SgmGrpcClient(String target) {
    this(target, Duration.ofSeconds(30));
  }

  public SgmGrpcClient(String target, Duration deadline) {
    String address = target.startsWith("grpc://") ? target.substring("grpc://".length()) : target;
    this.channel =
        NettyChannelBuilder.forTarget(address)
            .usePlaintext()
            .maxInboundMessageSize(64 * 1024 * 1024)
            .build();
    this.deadline = deadline;
  }

  private MemoryGrpc.MemoryBlockingStub memory() {
    return MemoryGrpc.newBlockingStub(channel)
        .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  private HistoryGrpc.HistoryBlockingStub history() {
    return HistoryGrpc.newBlockingStub(channel)
        .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Each profile operation's RPC, by wire name. */
  private final Map<String, Function<OperationRequest, OperationResponse>> profileMethods =
      Map.ofEntries(
          Map.entry("history.versions", r -> history().versions(r)),
          Map.entry("history.read", r -> history().readVersion(r)),
          Map.entry("history.restore", r -> history().restore(r)),
          Map.entry("history.undelete", r -> history().undelete(r)),
          Map.entry("snapshots.create", r -> history().createSnapshot(r)),
          Map.entry("snapshots.list", r -> history().listSnapshots(r)),
          Map.entry("snapshots.retrieve", r -> history().retrieveSnapshot(r)),
          Map.entry("snapshots.restore", r -> history().restoreSnapshot(r)),
          Map.entry("tasks.claim", r -> collaboration().claimTask(r)),
          Map.entry("tasks.transition", r -> collaboration().transitionTask(r)),
          Map.entry("tasks.ready", r -> collaboration().readyTasks(r)),
          Map.entry("rules.active", r -> collaboration().activeRules(r)),
          Map.entry("status.current", r -> collaboration().currentStatus(r)),
          Map.entry("handoffs.accept", r -> collaboration().acceptHandoff(r)),
          Map.entry("handoffs.complete", r -> collaboration().completeHandoff(r)),
          Map.entry("handoffs.resume", r -> collaboration().resumeHandoff(r)));

  private CollaborationGrpc.CollaborationBlockingStub collaboration() {
    return CollaborationGrpc.newBlockingStub(channel)
        .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public JsonNode call(String operation, JsonNode request) {
    try {
      return switch (operation) {
        case "discover" ->
            ProtoJson.toJson(
                memory()
                    .discover(ProtoJson.fromJson(request, DiscoverRequest.newBuilder()).build()));
        case "store" ->
            ProtoJson.toJson(
                memory().store(ProtoJson.fromJson(request, StoreRequest.newBuilder()).build()));
        case "store_batch" ->
            ProtoJson.toJson(
                memory()
                    .storeBatch(
                        ProtoJson.fromJson(request, StoreBatchRequest.newBuilder()).build()));
        case "read" ->
            readJson(memory().read(ProtoJson.fromJson(request, ReadRequest.newBuilder()).build()));
        case "retrieve" ->
            ProtoJson.toJson(
                memory()
                    .retrieve(ProtoJson.fromJson(request, RetrieveRequest.newBuilder()).build()));
        case "delete" ->
            ProtoJson.toJson(
                memory().delete(ProtoJson.fromJson(request, DeleteRequest.newBuilder()).build()));
        case "put_content" ->
            ProtoJson.toJson(
                memory()
                    .putContent(
                        ProtoJson.fromJson(request, PutContentRequest.newBuilder()).build()));
        default -> profileOperation(operation, request);
      };
    } catch (StatusRuntimeException e) {
      throw GrpcErrors.fromStatus(e);
    }
  }

  private JsonNode profileOperation(String operation, JsonNode request) {
    Function<OperationRequest, OperationResponse> method = profileMethods.get(operation);
    if (method == null) {
      throw new SgmException(
          ErrorCode.UNSUPPORTED_CAPABILITY,
          "operation '" + operation + "' has no gRPC method in sgm.v1");
    }
    OperationRequest body = OperationRequest.newBuilder().setJson(Json.write(request)).build();
    return Json.parse(method.apply(body).getJson());
  }

  /**
   * An unresolvable reference reads as {@code "content": null} plus the reason, as on every
   * transport.
   */
  private static JsonNode readJson(ReadResponse response) {
    ObjectNode json = ProtoJson.toJson(response);
    if (json.has("unresolved") && !json.has("content")) {
      ObjectNode ordered = Json.object();
      ordered.set("record", json.get("record"));
      ordered.putNull("content");
      ordered.set("unresolved", json.get("unresolved"));
      return ordered;
    }
    return json;
  }

  @Override
  public void close() {
    channel.shutdown();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
