package dev.sgm.transport.grpc;

import dev.sgm.api.SgmService;
import dev.sgm.api.spi.Listening;
import dev.sgm.api.spi.Transport;
import io.grpc.InsecureServerCredentials;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.TlsServerCredentials;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC server: every service of {@code sgm.v1} whose operations are offered (Memory always, a
 * profile's service while that profile is active), built from the descriptors' operation options;
 * health and reflection. Calls run on virtual threads, for the reason the HTTP transport gives: an
 * operation blocks on the store, and a parked virtual thread costs almost nothing. The standard
 * health service says what {@code /healthz} says: {@code NOT_SERVING} while the storage is out of
 * reach, checked every {@link #HEALTH_CHECK_MILLIS}.
 */
public final class GrpcTransport implements Transport {
  private static final System.Logger LOG = System.getLogger(GrpcTransport.class.getName());

  /** How often the health service asks the storage whether it answers. */
  static final long HEALTH_CHECK_MILLIS = 1000;

  private final GrpcSettings settings;
  private final SgmService service;
  private final HealthStatusManager health = new HealthStatusManager();
  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private Server server;
  private WatchCall watches;
  private Thread healthChecks;

  public GrpcTransport(GrpcSettings settings, SgmService service) {
    this.settings = settings;
    this.service = service;
  }

  @Override
  public void start() throws Exception {
    boolean tls = settings.tlsCert() != null;
    Listening.check(
        settings.host(), "grpc.host", service.authenticates(), tls, settings.plaintext());
    Calls calls = new Calls(service);
    watches = new WatchCall(service, executor, settings.heartbeatMillis());
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(
                new InetSocketAddress(settings.host(), settings.port()),
                tls
                    ? TlsServerCredentials.create(
                        settings.tlsCert().toFile(), settings.tlsKey().toFile())
                    : InsecureServerCredentials.create())
            .executor(executor)
            .maxInboundMessageSize(settings.maxMessageBytes())
            .addService(health.getHealthService())
            .addService(ProtoReflectionServiceV1.newInstance());
    Set<String> offered = Set.copyOf(service.operations());
    for (ServiceDescriptor descriptor : GrpcOperations.SERVICES) {
      ServerServiceDefinition definition = definition(descriptor, offered, calls, watches);
      if (definition != null) {
        builder.addService(ServerInterceptors.intercept(definition, Calls.INTERCEPTOR));
      }
    }
    Listening.bind(
        settings.host(), settings.port(), "grpc.port", () -> server = builder.build().start());
    updateHealth();
    healthChecks = Thread.ofPlatform().daemon().name("sgm-grpc-health").start(this::checkHealth);
    LOG.log(System.Logger.Level.INFO, "gRPC transport listening on {0}", endpoints().get(0));
  }

  /** Follows the service's health until the transport closes. */
  private void checkHealth() {
    while (true) {
      try {
        Thread.sleep(HEALTH_CHECK_MILLIS);
      } catch (InterruptedException e) {
        return;
      }
      updateHealth();
    }
  }

  private void updateHealth() {
    ServingStatus status;
    try {
      status =
          "ok".equals(service.health().path("status").asText())
              ? ServingStatus.SERVING
              : ServingStatus.NOT_SERVING;
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "the health check failed", e);
      status = ServingStatus.NOT_SERVING;
    }
    // The same for the server as a whole and for Memory: Memory is what needs the storage.
    health.setStatus("", status);
    health.setStatus(MemoryGrpc.SERVICE_NAME, status);
  }

  /**
   * A service with a handler for each of its RPCs, or null when one of its operations is not
   * offered: a profile's service is served only while the profile is active.
   */
  private static ServerServiceDefinition definition(
      ServiceDescriptor descriptor, Set<String> offered, Calls calls, WatchCall watches) {
    // The served methods read their requests leniently (Incoming), so the service is described
    // anew with them; it keeps the schema descriptor reflection serves.
    ServiceDescriptor.Builder served =
        ServiceDescriptor.newBuilder(descriptor.getName())
            .setSchemaDescriptor(descriptor.getSchemaDescriptor());
    List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    for (MethodDescriptor<?, ?> method : descriptor.getMethods()) {
      if (method.getFullMethodName().equals(MemoryGrpc.getWatchMethod().getFullMethodName())) {
        served.addMethod(MemoryGrpc.getWatchMethod());
        methods.add(
            ServerMethodDefinition.create(
                MemoryGrpc.getWatchMethod(), ServerCalls.asyncServerStreamingCall(watches::start)));
        continue;
      }
      String operation = GrpcOperations.operation(method);
      if (operation != null && !offered.contains(operation)) {
        return null;
      }
      ServerMethodDefinition<?, ?> bound = bind(method, operation, calls);
      served.addMethod(bound.getMethodDescriptor());
      methods.add(bound);
    }
    ServerServiceDefinition.Builder definition = ServerServiceDefinition.builder(served.build());
    methods.forEach(definition::addMethod);
    return definition.build();
  }

  private static <R> ServerMethodDefinition<Incoming, R> bind(
      MethodDescriptor<?, R> method, String operation, Calls calls) {
    MethodDescriptor<Incoming, R> lenient =
        method.toBuilder(
                Incoming.marshaller(method.getRequestMarshaller()), method.getResponseMarshaller())
            .build();
    return ServerMethodDefinition.create(
        lenient,
        ServerCalls.asyncUnaryCall(
            (Incoming request, StreamObserver<R> observer) ->
                calls.run(method, operation, request, observer)));
  }

  /** The port actually bound (useful when configured as 0). */
  public int port() {
    return server.getPort();
  }

  @Override
  public List<String> endpoints() {
    String host = settings.host().contains(":") ? "[" + settings.host() + "]" : settings.host();
    return List.of((settings.tlsCert() != null ? "grpcs://" : "grpc://") + host + ":" + port());
  }

  /** The open watch streams, for tests that check they are freed. */
  int openWatches() {
    return watches == null ? 0 : watches.open();
  }

  @Override
  public void close() {
    if (server == null) {
      return;
    }
    // Watch streams never finish by themselves: ended first, so that shutdown does not wait.
    watches.closeAll();
    healthChecks.interrupt();
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
