package dev.sgm.transport.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.Message;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.nio.NioIoHandler;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import io.grpc.stub.ClientCalls;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A client of the {@code sgm.v1} services: {@code call("retrieve", query)} converts the JSON query
 * to the typed message, calls {@code Memory.Retrieve} with a deadline, and converts the answer
 * back; an operation without a typed RPC goes through {@code Memory.Invoke}. One instance keeps one
 * channel; it is safe to share between threads. Close it when done.
 */
public final class SgmGrpcClient implements SgmClient, AutoCloseable {
  private final EventLoopGroup events;

  private final ManagedChannel channel;
  private final Duration deadline;

  /** A client of the server at {@code target}: {@code host:port} or {@code grpc://host:port}. */
  public SgmGrpcClient(String target) {
    this(target, Duration.ofSeconds(30));
  }

  public SgmGrpcClient(String target, Duration deadline) {
    this(target, deadline, null);
  }

  /**
   * A client that sends {@code token} (when not null) as {@code authorization} metadata. A {@code
   * grpcs://} target is reached over TLS, trusting the system's certificate authorities or the
   * bundle that {@link dev.sgm.api.spi.Pem#clientCa()} names; any other over plaintext.
   */
  public SgmGrpcClient(String target, Duration deadline, String token) {
    boolean tls = target.startsWith("grpcs://");
    String address = target.replaceFirst("^grpcs?://", "");
    NettyChannelBuilder builder;
    if (tls) {
      TlsChannelCredentials.Builder credentials = TlsChannelCredentials.newBuilder();
      dev.sgm.api.spi.Pem.clientCa().ifPresent(ca -> trust(credentials, ca));
      builder = NettyChannelBuilder.forTarget(address, credentials.build());
    } else {
      builder = NettyChannelBuilder.forTarget(address).usePlaintext();
    }
    // An event loop of its own, ended on close: gRPC's shared one outlives the channel by a second,
    // and a JVM that exits while a thread waits in epoll waits 300 ms more for it.
    this.events =
        new MultiThreadIoEventLoopGroup(
            1, new DefaultThreadFactory("sgm-grpc-client", true), NioIoHandler.newFactory());
    this.channel =
        builder
            .eventLoopGroup(events)
            .channelType(NioSocketChannel.class)
            .maxInboundMessageSize(64 * 1024 * 1024)
            .intercept(bearer(token))
            .build();
    this.deadline = deadline;
  }

  private static void trust(TlsChannelCredentials.Builder credentials, java.nio.file.Path ca) {
    try {
      credentials.trustManager(ca.toFile());
    } catch (java.io.IOException e) {
      throw dev.sgm.api.SgmException.invalidRequest(
          dev.sgm.api.spi.Pem.CLIENT_CA_ENV, ca + " is not a readable PEM certificate bundle");
    }
  }

  /**
   * Runs {@code operation}: over its typed RPC where the proto has one (the core operations), else
   * over {@code Memory.Invoke}, which reaches any operation the server offers, a profile plugin's
   * included.
   */
  @Override
  public JsonNode call(String operation, JsonNode request) {
    MethodDescriptor<?, ?> method = GrpcOperations.method(operation);
    try {
      if (method == null || GrpcOperations.carriesJson(method)) {
        InvokeRequest body =
            InvokeRequest.newBuilder().setOperation(operation).setJson(Json.write(request)).build();
        return Json.parse(unary(MemoryGrpc.getInvokeMethod(), body).getJson());
      }
      return ProtoJson.toJson(typed(method, request));
    } catch (StatusRuntimeException e) {
      throw GrpcErrors.fromStatus(e);
    }
  }

  @SuppressWarnings("unchecked")
  private <Q, R> Message typed(MethodDescriptor<Q, R> method, JsonNode request) {
    Q message =
        (Q)
            ProtoJson.fromJson(request, GrpcOperations.builder(method.getRequestMarshaller()))
                .build();
    return (Message) unary(method, message);
  }

  private <Q, R> R unary(MethodDescriptor<Q, R> method, Q request) {
    return ClientCalls.blockingUnaryCall(
        channel,
        method,
        CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS),
        request);
  }

  private static io.grpc.ClientInterceptor bearer(String token) {
    io.grpc.Metadata headers = new io.grpc.Metadata();
    if (token != null) {
      headers.put(
          io.grpc.Metadata.Key.of("authorization", io.grpc.Metadata.ASCII_STRING_MARSHALLER),
          "Bearer " + token);
    }
    return io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers);
  }

  @Override
  public void close() {
    channel.shutdown();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
      events.shutdownGracefully(0, 5, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
