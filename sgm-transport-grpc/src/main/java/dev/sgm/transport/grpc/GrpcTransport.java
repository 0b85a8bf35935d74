package dev.sgm.transport.grpc;

import dev.sgm.api.SgmService;
import dev.sgm.api.spi.Listening;
import dev.sgm.api.spi.Transport;
import io.grpc.InsecureServerCredentials;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC server: the Memory service, the History service while that profile is active, health and
 * reflection. Calls run on virtual threads, for the reason the HTTP transport gives: an operation
 * blocks on the store, and a parked virtual thread costs almost nothing.
 */
public final class GrpcTransport implements Transport {
  private static final System.Logger LOG = System.getLogger(GrpcTransport.class.getName());

  private final GrpcSettings settings;
  private final SgmService service;
  private final HealthStatusManager health = new HealthStatusManager();
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private Server server;

  public GrpcTransport(GrpcSettings settings, SgmService service) {
    this.settings = settings;
    this.service = service;
  }

  @Override
  public void start() throws IOException {
    Listening.requireLoopback(settings.host(), "grpc.host");
    Calls calls = new Calls(service);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(
                new InetSocketAddress(settings.host(), settings.port()),
                InsecureServerCredentials.create())
            .executor(executor)
            .maxInboundMessageSize(settings.maxMessageBytes())
            .addService(memory(calls))
            .addService(health.getHealthService())
            .addService(ProtoReflectionServiceV1.newInstance());
    // A profile's service is registered only while the profile is active; otherwise its methods
    // answer UNIMPLEMENTED.
    for (ProfileMethods.ProfileService profile : ProfileMethods.SERVICES) {
      if (service.operations().containsAll(profile.methods().keySet())) {
        builder.addService(profile(profile.descriptor(), profile.methods(), calls));
      }
    }
    server = builder.build().start();
    health.setStatus("", ServingStatus.SERVING);
    health.setStatus(MemoryGrpc.SERVICE_NAME, ServingStatus.SERVING);
    LOG.log(System.Logger.Level.INFO, "gRPC transport listening on {0}", endpoints().get(0));
  }

  private static MemoryGrpc.MemoryImplBase memory(Calls calls) {
    return new MemoryGrpc.MemoryImplBase() {
      @Override
      public void discover(DiscoverRequest request, StreamObserver<DiscoverResponse> observer) {
        calls.unary("discover", request, DiscoverResponse.newBuilder(), observer);
      }

      @Override
      public void store(StoreRequest request, StreamObserver<StoreResponse> observer) {
        calls.unary("store", request, StoreResponse.newBuilder(), observer);
      }

      @Override
      public void storeBatch(
          StoreBatchRequest request, StreamObserver<StoreBatchResponse> observer) {
        calls.unary("store_batch", request, StoreBatchResponse.newBuilder(), observer);
      }

      @Override
      public void read(ReadRequest request, StreamObserver<ReadResponse> observer) {
        calls.unary("read", request, ReadResponse.newBuilder(), observer);
      }

      @Override
      public void retrieve(RetrieveRequest request, StreamObserver<RetrieveResponse> observer) {
        calls.unary("retrieve", request, RetrieveResponse.newBuilder(), observer);
      }

      @Override
      public void delete(DeleteRequest request, StreamObserver<DeleteResponse> observer) {
        calls.unary("delete", request, DeleteResponse.newBuilder(), observer);
      }

      @Override
      public void putContent(
          PutContentRequest request, StreamObserver<PutContentResponse> observer) {
        calls.unary("put_content", request, PutContentResponse.newBuilder(), observer);
      }
    };
  }

  private static ServerServiceDefinition profile(
      ServiceDescriptor descriptor,
      Map<String, MethodDescriptor<OperationRequest, OperationResponse>> methods,
      Calls calls) {
    ServerServiceDefinition.Builder service = ServerServiceDefinition.builder(descriptor);
    methods.forEach(
        (operation, method) ->
            service.addMethod(
                method,
                ServerCalls.asyncUnaryCall(
                    (request, observer) -> calls.json(operation, request, observer))));
    return service.build();
  }

  /** The port actually bound (useful when configured as 0). */
  public int port() {
    return server.getPort();
  }

  @Override
  public List<String> endpoints() {
    String host = settings.host().contains(":") ? "[" + settings.host() + "]" : settings.host();
    return List.of("grpc://" + host + ":" + port());
  }

  @Override
  public void close() {
    if (server == null) {
      return;
    }
    health.enterTerminalState();
    server.shutdown();
    try {
      if (!server.awaitTermination(settings.stopTimeoutMillis(), TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
    executor.shutdown();
  }
}
