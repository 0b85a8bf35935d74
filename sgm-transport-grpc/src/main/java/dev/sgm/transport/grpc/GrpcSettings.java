package dev.sgm.transport.grpc;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Listening;

/**
 * The gRPC transport's configuration.
 *
 * @param host the address to listen on ({@code grpc.host}, default loopback)
 * @param port the port ({@code grpc.port}, default 7411; 0 picks a free one)
 * @param maxMessageBytes the largest message accepted ({@code grpc.max-message-bytes}, 4 MiB)
 * @param stopTimeoutMillis how long shutdown waits for calls in flight ({@code
 *     grpc.stop-timeout-ms})
 * @param heartbeatMillis how often an idle watch stream gets a heartbeat message ({@code
 *     watch.heartbeat-ms}, default 15 s)
 */
public record GrpcSettings(
    String host, int port, int maxMessageBytes, long stopTimeoutMillis, long heartbeatMillis) {
  /** The port used when none is configured. */
  public static final int DEFAULT_PORT = 7411;

  public static GrpcSettings from(Config config) {
    int port = Listening.port(config, "grpc.port", DEFAULT_PORT);
    return new GrpcSettings(
        config.get("grpc.host", "127.0.0.1"),
        port,
        config.getInt("grpc.max-message-bytes", 4 * 1024 * 1024),
        config.getLong("grpc.stop-timeout-ms", 10_000),
        Math.max(10, config.getLong("watch.heartbeat-ms", 15_000)));
  }
}
