package dev.sgm.transport.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

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
    MethodDescriptor<OperationRequest, OperationResponse> method = ProfileMethods.of(operation);
    if (method == null) {
      throw new SgmException(
          ErrorCode.UNSUPPORTED_CAPABILITY,
          "operation '" + operation + "' has no gRPC method in sgm.v1");
    }
    OperationRequest body = OperationRequest.newBuilder().setJson(Json.write(request)).build();
    OperationResponse response =
        ClientCalls.blockingUnaryCall(
            channel,
            method,
            CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS),
            body);
    return Json.parse(response.getJson());
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
