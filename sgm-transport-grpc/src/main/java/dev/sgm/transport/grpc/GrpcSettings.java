package dev.sgm.transport.grpc;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;

/**
 * The gRPC transport's configuration.
 *
 * @param host the address to listen on ({@code grpc.host}, default loopback)
 * @param port the port ({@code grpc.port}, default 7411; 0 picks a free one)
 * @param maxMessageBytes the largest message accepted ({@code grpc.max-message-bytes}, 4 MiB)
 * @param stopTimeoutMillis how long shutdown waits for calls in flight ({@code
 *     grpc.stop-timeout-ms})
 */
public record GrpcSettings(String host, int port, int maxMessageBytes, long stopTimeoutMillis) {
  /** The port used when none is configured. */
  public static final int DEFAULT_PORT = 7411;

  public static GrpcSettings from(Config config) {
    int port = config.getInt("grpc.port", DEFAULT_PORT);
    if (port < 0 || port > 65535) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST, "configuration grpc.port: " + port + " is not a port");
    }
    return new GrpcSettings(
        config.get("grpc.host", "127.0.0.1"),
        port,
        config.getInt("grpc.max-message-bytes", 4 * 1024 * 1024),
        config.getLong("grpc.stop-timeout-ms", 10_000));
  }
}
