package dev.sgm.transport.grpc;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Transport;
import dev.sgm.api.spi.TransportContext;
import dev.sgm.api.spi.TransportProvider;
import java.util.Set;

/** Provides the {@code grpc} transport: the {@code sgm.v1} services on Netty. */
public final class GrpcTransportProvider implements TransportProvider {
  @Override
  public String name() {
    return "grpc";
  }

  @Override
  public int order() {
    return 10;
  }

  @Override
  public Set<String> configKeys() {
    return Set.of(
        "grpc.host",
        "grpc.port",
        "grpc.tls.cert",
        "grpc.tls.key",
        "grpc.max-message-bytes",
        "grpc.stop-timeout-ms");
  }

  @Override
  public Transport create(Config config, TransportContext context) {
    return new GrpcTransport(GrpcSettings.from(config), context.service());
  }
}
