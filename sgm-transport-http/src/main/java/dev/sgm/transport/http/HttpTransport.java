package dev.sgm.transport.http;

import dev.sgm.api.SgmService;
import dev.sgm.api.spi.Listening;
import dev.sgm.api.spi.Pem;
import dev.sgm.api.spi.Transport;
import dev.sgm.transport.http.spi.WebApp;
import java.util.List;
import java.util.concurrent.Executors;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The HTTP server. Requests are handled on virtual threads: an operation blocks on the store (a
 * JDBC call, possibly a row lock), and a virtual thread parks there for the cost of a few hundred
 * bytes, so a burst of slow writes cannot exhaust a fixed pool while reads wait behind them. The
 * store's own connection pool bounds the work actually in progress.
 */
public final class HttpTransport implements Transport {
  private static final System.Logger LOG = System.getLogger(HttpTransport.class.getName());

  private final HttpSettings settings;
  private final Server server;
  private final ServerConnector connector;
  private final boolean authenticates;
  private final Handler handler;

  public HttpTransport(HttpSettings settings, SgmService service) {
    this(settings, service, List.of());
  }

  /** A server of the API and of {@code webApps} (asked in order for the paths outside the API). */
  public HttpTransport(HttpSettings settings, SgmService service, List<WebApp> webApps) {
    this(settings, new SgmHandler(service, settings, webApps), service.authenticates());
  }

  /** The open watch streams, for tests that check they are freed. */
  int openWatches() {
    return handler instanceof SgmHandler sgm ? sgm.watches().open() : 0;
  }

  /** A server with the SGM settings around another handler; benchmarks use it for a baseline. */
  public HttpTransport(HttpSettings settings, Handler handler) {
    this(settings, handler, false);
  }

  private HttpTransport(HttpSettings settings, Handler handler, boolean authenticates) {
    this.authenticates = authenticates;
    this.settings = settings;
    this.handler = handler;
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("sgm-http");
    threads.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
    this.server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendXPoweredBy(false);
    if (settings.tls()) {
      http.addCustomizer(new SecureRequestCustomizer(false));
      SslContextFactory.Server tls = new SslContextFactory.Server();
      tls.setKeyStore(Pem.keyStore(settings.tlsCert(), settings.tlsKey()));
      tls.setKeyStorePassword(new String(Pem.PASSWORD));
      this.connector =
          new ServerConnector(
              server, new SslConnectionFactory(tls, "http/1.1"), new HttpConnectionFactory(http));
    } else {
      this.connector = new ServerConnector(server, new HttpConnectionFactory(http));
    }
    connector.setHost(settings.host());
    connector.setPort(settings.port());
    server.addConnector(connector);
    // In-flight requests finish on shutdown; new ones are refused with 503 meanwhile.
    server.setHandler(new GracefulHandler(handler));
    server.setErrorHandler(new JsonErrorHandler());
    server.setStopTimeout(settings.stopTimeoutMillis());
    server.setStopAtShutdown(false);
  }

  @Override
  public void start() throws Exception {
    Listening.check(
        settings.host(), "http.host", authenticates, settings.tls(), settings.plaintext());
    Listening.bind(settings.host(), settings.port(), "http.port", server::start);
    LOG.log(System.Logger.Level.INFO, "HTTP transport listening on {0}", endpoints().get(0));
  }

  /** The port actually bound (useful when configured as 0). */
  public int port() {
    return connector.getLocalPort();
  }

  @Override
  public List<String> endpoints() {
    String host = settings.host().contains(":") ? "[" + settings.host() + "]" : settings.host();
    return List.of((settings.tls() ? "https://" : "http://") + host + ":" + port());
  }

  @Override
  public void close() {
    // Watch streams never finish by themselves: ended first, so that shutdown does not wait.
    if (handler instanceof SgmHandler sgm) {
      sgm.watches().closeAll();
    }
    try {
      server.stop();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "HTTP transport did not stop cleanly", e);
    }
  }
}
