package dev.sgm.transport.http;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Listening;
import java.nio.file.Path;

/**
 * The HTTP transport's configuration.
 *
 * @param host the address to listen on ({@code http.host}, default loopback)
 * @param port the port ({@code http.port}, default 7410; 0 picks a free one)
 * @param maxBodyBytes the largest request body accepted ({@code http.max-body-bytes}, default 4
 *     MiB)
 * @param logRequests one log line per request, without content ({@code http.log-requests})
 * @param stopTimeoutMillis how long shutdown waits for in-flight requests ({@code
 *     http.stop-timeout-ms})
 * @param tlsCert the PEM certificate chain to serve HTTPS with ({@code http.tls.cert}), or null
 * @param tlsKey its PEM private key ({@code http.tls.key}), or null
 * @param plaintext whether plaintext is allowed off loopback ({@code listen.plaintext})
 * @param heartbeatMillis how often an idle watch stream gets a heartbeat comment ({@code
 *     watch.heartbeat-ms}, default 15 s): it keeps proxies from closing it and finds clients gone
 */
public record HttpSettings(
    String host,
    int port,
    long maxBodyBytes,
    boolean logRequests,
    long stopTimeoutMillis,
    Path tlsCert,
    Path tlsKey,
    boolean plaintext,
    long heartbeatMillis) {

  /** How often an idle watch stream gets a heartbeat unless configured. */
  public static final long DEFAULT_HEARTBEAT_MS = 15_000;

  /** Plain HTTP settings, without TLS, with the default heartbeat. */
  public HttpSettings(
      String host, int port, long maxBodyBytes, boolean logRequests, long stopTimeoutMillis) {
    this(
        host,
        port,
        maxBodyBytes,
        logRequests,
        stopTimeoutMillis,
        null,
        null,
        false,
        DEFAULT_HEARTBEAT_MS);
  }

  public HttpSettings {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST, "configuration http.tls.cert and http.tls.key go together");
    }
  }

  /** True when the server speaks HTTPS. */
  public boolean tls() {
    return tlsCert != null;
  }

  /** The port used when none is configured. */
  public static final int DEFAULT_PORT = 7410;

  public static HttpSettings from(Config config) {
    int port = Listening.port(config, "http.port", DEFAULT_PORT);
    long maxBody = config.getLong("http.max-body-bytes", 4L * 1024 * 1024);
    if (maxBody < 1024) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST, "configuration http.max-body-bytes: must be at least 1024");
    }
    return new HttpSettings(
        config.get("http.host", "127.0.0.1"),
        port,
        maxBody,
        config.getBoolean("http.log-requests", true),
        config.getLong("http.stop-timeout-ms", 10_000),
        config.get("http.tls.cert").map(Path::of).orElse(null),
        config.get("http.tls.key").map(Path::of).orElse(null),
        config.getBoolean(Listening.PLAINTEXT, false),
        Math.max(10, config.getLong("watch.heartbeat-ms", DEFAULT_HEARTBEAT_MS)));
  }
}
