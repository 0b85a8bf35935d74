package dev.sgm.transport.http;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Listening;

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
 * @param heartbeatMillis how often an idle watch stream gets a heartbeat comment ({@code
 *     watch.heartbeat-ms}, default 15 s): it keeps proxies from closing it and finds clients gone
 */
public record HttpSettings(
    String host,
    int port,
    long maxBodyBytes,
    boolean logRequests,
    long stopTimeoutMillis,
    long heartbeatMillis) {

  /** Settings with the default heartbeat. */
  public HttpSettings(
      String host, int port, long maxBodyBytes, boolean logRequests, long stopTimeoutMillis) {
    this(host, port, maxBodyBytes, logRequests, stopTimeoutMillis, DEFAULT_HEARTBEAT_MS);
  }

  /** How often an idle watch stream gets a heartbeat unless configured. */
  public static final long DEFAULT_HEARTBEAT_MS = 15_000;

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
        Math.max(10, config.getLong("watch.heartbeat-ms", DEFAULT_HEARTBEAT_MS)));
  }
}
