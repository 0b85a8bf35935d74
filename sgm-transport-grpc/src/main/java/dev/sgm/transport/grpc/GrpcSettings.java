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
 * @param tlsCert the PEM certificate chain to serve TLS with ({@code grpc.tls.cert}), or null
 * @param tlsKey its PEM private key ({@code grpc.tls.key}), or null
 * @param plaintext whether plaintext is allowed off loopback ({@code listen.plaintext})
 * @param heartbeatMillis how often an idle watch stream gets a heartbeat message ({@code
 *     watch.heartbeat-ms}, default 15 s)
 */
public record GrpcSettings(
    String host,
    int port,
    int maxMessageBytes,
    long stopTimeoutMillis,
    java.nio.file.Path tlsCert,
    java.nio.file.Path tlsKey,
    boolean plaintext,
    long heartbeatMillis) {
  public GrpcSettings {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new dev.sgm.api.SgmException(
          dev.sgm.api.ErrorCode.INVALID_REQUEST,
          "configuration grpc.tls.cert and grpc.tls.key go together");
    }
  }

  /** The port used when none is configured. */
  public static final int DEFAULT_PORT = 7411;

  public static GrpcSettings from(Config config) {
    int port = Listening.port(config, "grpc.port", DEFAULT_PORT);
    return new GrpcSettings(
        config.get("grpc.host", "127.0.0.1"),
        port,
        config.getInt("grpc.max-message-bytes", 4 * 1024 * 1024),
        config.getLong("grpc.stop-timeout-ms", 10_000),
        config.get("grpc.tls.cert").map(java.nio.file.Path::of).orElse(null),
        config.get("grpc.tls.key").map(java.nio.file.Path::of).orElse(null),
        config.getBoolean(Listening.PLAINTEXT, false),
        Math.max(10, config.getLong("watch.heartbeat-ms", 15_000)));
  }
}
