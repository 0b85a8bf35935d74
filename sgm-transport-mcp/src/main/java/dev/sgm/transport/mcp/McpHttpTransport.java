package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Listening;
import dev.sgm.api.spi.Pem;
import dev.sgm.api.spi.Transport;
import java.io.InputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * MCP's Streamable HTTP transport at {@code /mcp} ({@code mcp.host}, {@code mcp.port}, default
 * 127.0.0.1:7412). A session starts with {@code initialize} and is named by the {@code
 * Mcp-Session-Id} header; its default scope and agent come from {@code ?project=&agent=} on the
 * URL, else from {@code mcp.project} and {@code mcp.agent}. Requests whose Origin or Host is not
 * local are refused, against DNS rebinding. Responses are plain JSON; a session's GET is its
 * server-initiated stream, which carries the notifications of its resource subscriptions (a GET
 * without a session answers 405).
 */
public final class McpHttpTransport implements Transport {
  private static final System.Logger LOG = System.getLogger(McpHttpTransport.class.getName());
  private static final String ORIGIN = "mcp";
  private static final Set<String> LOCAL = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

  private final String host;
  private final int port;
  private final McpServer mcp;
  private final McpDefaults configured;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();

  /** How long a session lives without a request ({@code mcp.session-idle-ms}, 30 minutes). */
  private final long sessionIdleNanos;

  /** A session's defaults and when it was last used. */
  private static final class Session {
    final McpDefaults defaults;
    volatile long usedNanos = System.nanoTime();

    Session(McpDefaults defaults) {
      this.defaults = defaults;
    }
  }

  /** The live session of that id, touched; null when unknown or idle too long (then it ends). */
  private McpDefaults session(String id) {
    Session session = id == null ? null : sessions.get(id);
    if (session == null) {
      return null;
    }
    long now = System.nanoTime();
    if (now - session.usedNanos > sessionIdleNanos) {
      if (sessions.remove(id, session)) {
        endSubscriptions(id);
      }
      return null;
    }
    session.usedNanos = now;
    return session.defaults;
  }

  /** Ends every session idle too long; run as sessions start, so the map cannot grow unbounded. */
  private void expireIdle() {
    long now = System.nanoTime();
    sessions
        .entrySet()
        .removeIf(
            e -> {
              boolean idle = now - e.getValue().usedNanos > sessionIdleNanos;
              if (idle) {
                endSubscriptions(e.getKey());
              }
              return idle;
            });
  }

  /** Closes the watches of a session that has ended. */
  private void endSubscriptions(String id) {
    McpSubscriptions gone = subscriptions.remove(id);
    if (gone != null) {
      gone.close();
    }
  }

  private final Map<String, McpSubscriptions> subscriptions = new ConcurrentHashMap<>();
  private final java.util.function.Function<dev.sgm.api.ChangesRequest, dev.sgm.api.ChangeStream>
      watcher;
  private final long heartbeatMillis;

  private final Server server;
  private final ServerConnector connector;
  private final SgmService service;
  private final java.nio.file.Path tlsCert;

  /**
   * The names a request's Host and Origin may give: this machine's, the address listened on, and
   * {@code mcp.allowed-hosts} (comma-separated) for a server reached by name off loopback.
   */
  private final Set<String> allowedHosts;

  private final boolean plaintext;

  /**
   * The caller of the request being handled on this thread: a request is handled start to end on
   * one thread, and the MCP layer calls operations without knowing about tokens.
   */
  private final ThreadLocal<Caller> current = new ThreadLocal<>();

  public McpHttpTransport(Config config, SgmService service) {
    this.host = config.get("mcp.host", "127.0.0.1");
    this.port = Listening.port(config, "mcp.port", 7412);
    String project = config.get("mcp.project").orElse(null);
    this.configured =
        new McpDefaults(
            project == null ? null : Json.object().put("project", project),
            config.get("mcp.agent").orElse(null));
    this.service = service;
    // A subscription is made while its request is handled: it watches as that request's caller.
    this.watcher = request -> service.watch(current.get(), request);
    this.heartbeatMillis = Math.max(10, config.getLong("watch.heartbeat-ms", 15_000));
    this.mcp =
        new McpServer(
            (operation, request) -> service.invoke(current.get(), operation, request),
            service
                .discover(Caller.anonymous(ORIGIN), dev.sgm.api.DiscoverRequest.any())
                .operations(),
            McpHttpTransport.class.getModule().getDescriptor() == null
                ? "development"
                : McpHttpTransport.class
                    .getModule()
                    .getDescriptor()
                    .rawVersion()
                    .orElse("development"),
            true);
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("sgm-mcp");
    threads.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
    this.server = new Server(threads);
    Set<String> allowed = new java.util.HashSet<>(LOCAL);
    allowed.add(host);
    for (String name : config.get("mcp.allowed-hosts", "").split(",")) {
      if (!name.isBlank()) {
        allowed.add(name.strip().toLowerCase(java.util.Locale.ROOT));
      }
    }
    this.allowedHosts = Set.copyOf(allowed);
    this.sessionIdleNanos =
        java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(
            config.getLong("mcp.session-idle-ms", 30L * 60 * 1000));
    this.tlsCert = config.get("mcp.tls.cert").map(java.nio.file.Path::of).orElse(null);
    this.plaintext = config.getBoolean(Listening.PLAINTEXT, false);
    if (tlsCert != null) {
      SslContextFactory.Server tls = new SslContextFactory.Server();
      tls.setKeyStore(
          Pem.keyStore(
              tlsCert,
              config
                  .get("mcp.tls.key")
                  .map(java.nio.file.Path::of)
                  .orElseThrow(
                      () ->
                          SgmException.invalidRequest(
                              "mcp.tls.key", "goes with mcp.tls.cert: the PEM private key"))));
      tls.setKeyStorePassword(new String(Pem.PASSWORD));
      HttpConfiguration https = new HttpConfiguration();
      https.addCustomizer(new SecureRequestCustomizer(false));
      this.connector =
          new ServerConnector(
              server, new SslConnectionFactory(tls, "http/1.1"), new HttpConnectionFactory(https));
    } else {
      this.connector = new ServerConnector(server);
    }
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(new McpHandler());
    server.setStopTimeout(10_000);
  }

  @Override
  public void start() throws Exception {
    Listening.check(host, "mcp.host", service.authenticates(), tlsCert != null, plaintext);
    server.start();
    LOG.log(System.Logger.Level.INFO, "MCP (Streamable HTTP) listening on {0}", endpoints().get(0));
  }

  /** The port actually bound. */
  public int port() {
    return connector.getLocalPort();
  }

  @Override
  public List<String> endpoints() {
    return List.of(
        (tlsCert != null ? "https://" : "http://")
            + (host.contains(":") ? "[" + host + "]" : host)
            + ":"
            + port()
            + "/mcp");
  }

  /** How many resource subscriptions the sessions hold, for tests that check they are freed. */
  int openSubscriptions() {
    return subscriptions.values().stream().mapToInt(McpSubscriptions::open).sum();
  }

  @Override
  public void close() {
    // Notification streams never finish by themselves: ended first, so shutdown does not wait.
    subscriptions.values().forEach(McpSubscriptions::close);
    subscriptions.clear();
    try {
      server.stop();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "MCP transport did not stop cleanly", e);
    }
  }

  private final class McpHandler extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      String path = Request.getPathInContext(request);
      if (!path.equals("/mcp")) {
        return reply(
            response,
            callback,
            404,
            null,
            McpServer.error(null, -32600, "the MCP endpoint is /mcp"));
      }
      if (!local(request)) {
        return reply(
            response,
            callback,
            403,
            null,
            McpServer.error(null, -32600, "requests must come from this machine"));
      }
      String session = request.getHeaders().get("Mcp-Session-Id");
      switch (request.getMethod()) {
        case "DELETE" -> {
          boolean known = session != null && sessions.remove(session) != null;
          if (session != null) {
            endSubscriptions(session);
          }
          return reply(response, callback, known ? 200 : 404, null, null);
        }
        case "POST" -> {
          return post(request, response, callback, session);
        }
        case "GET" -> {
          if (session == null) {
            // A stream belongs to a session: without one there is nothing to stream.
            response.getHeaders().put(HttpHeader.ALLOW, "POST, DELETE");
            return reply(response, callback, 405, null, null);
          }
          McpSubscriptions subscribed =
              session(session) == null ? null : subscriptions.get(session);
          if (subscribed == null) {
            return reply(
                response, callback, 404, null, McpServer.error(null, -32600, "unknown session"));
          }
          notifications(subscribed, response, callback);
          return true;
        }
        default -> {
          response.getHeaders().put(HttpHeader.ALLOW, "POST, DELETE");
          return reply(response, callback, 405, null, null);
        }
      }
    }

    private boolean post(Request request, Response response, Callback callback, String session)
        throws Exception {
      Caller caller;
      try {
        caller =
            service.authenticate(
                ORIGIN,
                request.getHeaders().get(HttpHeader.AUTHORIZATION),
                Request.getRemoteAddr(request));
      } catch (SgmException e) {
        // Refused before the body is read: left unread, Jetty would close the kept-alive
        // connection after the answer without saying so, and the client's next request on it
        // would get no answer.
        try (InputStream in = Content.Source.asInputStream(request)) {
          byte[] buffer = new byte[16 * 1024];
          long read = 0;
          for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            read += n;
            if (read > 8 * 1024 * 1024) {
              response.getHeaders().put(HttpHeader.CONNECTION, "close");
              break;
            }
          }
        } catch (java.io.IOException unread) {
          response.getHeaders().put(HttpHeader.CONNECTION, "close");
        }
        if (e.code() == dev.sgm.api.ErrorCode.UNAUTHENTICATED) {
          response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"sgm\"");
        }
        e.retryAfterSeconds()
            .ifPresent(seconds -> response.getHeaders().put(HttpHeader.RETRY_AFTER, seconds));
        return reply(
            response,
            callback,
            e.httpStatus(),
            null,
            McpServer.error(null, -32001, e.getMessage()));
      }
      current.set(caller);
      try {
        return authenticated(request, response, callback, session);
      } finally {
        current.remove();
      }
    }

    private boolean authenticated(
        Request request, Response response, Callback callback, String session) throws Exception {
      JsonNode body;
      try (InputStream in = Content.Source.asInputStream(request)) {
        body = Json.parse(in.readNBytes(8 * 1024 * 1024));
      } catch (SgmException e) {
        return reply(
            response,
            callback,
            400,
            null,
            McpServer.error(null, -32700, "parse error: " + e.getMessage()));
      }
      boolean initializing = body.isObject() && "initialize".equals(body.path("method").asText());
      McpDefaults defaults;
      String newSession = null;
      McpSubscriptions subscribed;
      if (initializing) {
        newSession = UUID.randomUUID().toString();
        defaults = fromQuery(request);
        expireIdle();
        sessions.put(newSession, new Session(defaults));
        subscriptions.put(newSession, new McpSubscriptions(watcher));
      } else {
        defaults = session(session);
        if (defaults == null) {
          return reply(
              response,
              callback,
              session == null ? 400 : 404,
              null,
              McpServer.error(
                  null,
                  -32600,
                  session == null
                      ? "missing Mcp-Session-Id; initialize first"
                      : "unknown session"));
        }
      }
      subscribed = subscriptions.get(newSession != null ? newSession : session);
      JsonNode answer;
      if (body.isArray()) {
        ArrayNode answers = Json.array();
        for (JsonNode message : body) {
          ObjectNode one = mcp.handle(message, defaults, subscribed);
          if (one != null) {
            answers.add(one);
          }
        }
        answer = answers.isEmpty() ? null : answers;
      } else {
        answer = mcp.handle(body, defaults, subscribed);
      }
      return reply(response, callback, answer == null ? 202 : 200, newSession, answer);
    }

    /**
     * The session's server-to-client stream (the GET of Streamable HTTP): its resource
     * notifications as server-sent events, with heartbeat comments while idle, until the client
     * leaves or the session ends.
     */
    private void notifications(McpSubscriptions subscribed, Response response, Callback callback) {
      response.setStatus(200);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
      response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
      try (java.io.OutputStream out = Content.Sink.asOutputStream(response)) {
        out.write(": stream open\n\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        out.flush();
        while (!subscribed.closed()) {
          ObjectNode notification = subscribed.next(java.time.Duration.ofMillis(heartbeatMillis));
          String frame =
              notification == null
                  ? ": heartbeat\n\n"
                  : "event: message\ndata: " + Json.write(notification) + "\n\n";
          out.write(frame.getBytes(java.nio.charset.StandardCharsets.UTF_8));
          out.flush();
        }
        callback.succeeded();
      } catch (java.io.IOException e) {
        callback.failed(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        callback.failed(e);
      }
    }

    private McpDefaults fromQuery(Request request) {
      Fields query = Request.extractQueryParameters(request);
      String project = query.getValue("project");
      String agent = query.getValue("agent");
      return new McpDefaults(
          project != null ? Json.object().put("project", project) : configured.scope(),
          agent != null ? agent : configured.agent());
    }

    /**
     * Origin (when sent) and Host must name this machine: the browser-borne DNS-rebinding guard.
     */
    private boolean local(Request request) {
      String origin = request.getHeaders().get(HttpHeader.ORIGIN);
      if (origin != null && !origin.equals("null")) {
        try {
          String originHost = URI.create(origin).getHost();
          if (originHost == null || !allowedHosts.contains(originHost)) {
            return false;
          }
        } catch (IllegalArgumentException e) {
          return false;
        }
      }
      String hostHeader = request.getHeaders().get(HttpHeader.HOST);
      if (hostHeader == null) {
        return true;
      }
      String name =
          hostHeader.startsWith("[")
              ? hostHeader.substring(0, hostHeader.indexOf(']') + 1)
              : hostHeader.split(":")[0];
      return allowedHosts.contains(name.toLowerCase(java.util.Locale.ROOT));
    }

    private boolean reply(
        Response response, Callback callback, int status, String session, JsonNode body) {
      response.setStatus(status);
      if (session != null) {
        response.getHeaders().put("Mcp-Session-Id", session);
      }
      if (body == null) {
        callback.succeeded();
        return true;
      }
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
      response.write(true, ByteBuffer.wrap(Json.writeBytes(body)), callback);
      return true;
    }
  }
}
