package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Listening;
import dev.sgm.api.spi.Pem;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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
 * 127.0.0.1:7412), for both eras of the protocol on one endpoint.
 *
 * <p>A 2026-07-28 request (its {@code _meta} names the version) stands alone: any node of a cluster
 * can answer it, its {@code MCP-Protocol-Version}, {@code Mcp-Method} and {@code Mcp-Name} headers
 * must agree with its body, and {@code subscriptions/listen} answers with a stream of server-sent
 * events. A 2025 session starts with {@code initialize}, is named by the {@code Mcp-Session-Id}
 * header, belongs to the principal that began it, and its GET is its server-initiated stream.
 *
 * <p>Every request, whatever its method, is authenticated; a long-lived stream checks its token
 * again every second and ends, with the error, once the token is revoked or expires. Default scope
 * and agent come from {@code ?project=&agent=} on the URL, else from {@code mcp.project} and {@code
 * mcp.agent}. Requests whose Origin or Host is not local are refused, against DNS rebinding.
 */
public final class McpHttpTransport implements dev.sgm.api.spi.Transport {
  private static final System.Logger LOG = System.getLogger(McpHttpTransport.class.getName());
  private static final String ORIGIN = "mcp";
  private static final Set<String> LOCAL = Set.of("localhost", "127.0.0.1", "[::1]", "::1");

  /** The largest request body read. */
  private static final int MAX_BODY = 8 * 1024 * 1024;

  /** How often a long-lived stream checks that its caller's token still holds. */
  private static final Duration RECHECK = Duration.ofSeconds(1);

  /** The methods whose target travels in {@code Mcp-Name} too: the body field it mirrors. */
  private static final Map<String, String> NAMED =
      Map.of("tools/call", "name", "prompts/get", "name", "resources/read", "uri");

  private final String host;
  private final int port;
  private final McpServer mcp;
  private final McpDefaults configured;
  private final SgmService service;
  private final long heartbeatMillis;
  private final long sessionIdleNanos;
  private final Server server;
  private final ServerConnector connector;
  private final java.nio.file.Path tlsCert;
  private final boolean plaintext;

  /**
   * The names a request's Host and Origin may give: this machine's, the address listened on, and
   * {@code mcp.allowed-hosts} (comma-separated) for a server reached by name off loopback.
   */
  private final Set<String> allowedHosts;

  /** The 2025 sessions by id. */
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();

  /** The connections with a stream open (2026 listens), to end them when the server stops. */
  private final Set<McpConnection> streaming = ConcurrentHashMap.newKeySet();

  /**
   * The caller of the request being handled on this thread: a request is handled start to end on
   * one thread, and the MCP layer calls operations without knowing about tokens.
   */
  private final ThreadLocal<Caller> current = new ThreadLocal<>();

  /** A 2025 session: whose it is, its connection, and when it was last used. */
  private static final class Session {
    final Optional<String> principal;
    final McpConnection connection;
    volatile long usedNanos = System.nanoTime();

    Session(Optional<String> principal, McpConnection connection) {
      this.principal = principal;
      this.connection = connection;
    }
  }

  /** A request's caller, with what authenticated it, to check again while a stream lasts. */
  private record Authenticated(Caller caller, String authorization, String address) {}

  public McpHttpTransport(Config config, SgmService service) {
    this.host = config.get("mcp.host", "127.0.0.1");
    this.port = Listening.port(config, "mcp.port", 7412);
    String project = config.get("mcp.project").orElse(null);
    this.configured =
        new McpDefaults(
            project == null ? null : Json.object().put("project", project),
            config.get("mcp.agent").orElse(null));
    this.service = service;
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
                    .orElse("development"));
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("sgm-mcp");
    threads.setVirtualThreadsExecutor(Executors.newVirtualThreadPerTaskExecutor());
    this.server = new Server(threads);
    Set<String> allowed = new java.util.HashSet<>(LOCAL);
    allowed.add(host);
    for (String name : config.get("mcp.allowed-hosts", "").split(",")) {
      if (!name.isBlank()) {
        allowed.add(name.strip().toLowerCase(Locale.ROOT));
      }
    }
    this.allowedHosts = Set.copyOf(allowed);
    this.sessionIdleNanos =
        TimeUnit.MILLISECONDS.toNanos(config.getLong("mcp.session-idle-ms", 30L * 60 * 1000));
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
      HttpConfiguration https = httpConfiguration();
      https.addCustomizer(new SecureRequestCustomizer(false));
      this.connector =
          new ServerConnector(
              server, new SslConnectionFactory(tls, "http/1.1"), new HttpConnectionFactory(https));
    } else {
      this.connector = new ServerConnector(server, new HttpConnectionFactory(httpConfiguration()));
    }
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(new McpHandler());
    server.setErrorHandler(new McpErrorHandler());
    server.setStopTimeout(10_000);
  }

  /**
   * Room for large headers: a 2026-07-28 request mirrors a resource's URI or a tool's name in
   * {@code Mcp-Name}, and a record's id may be long.
   */
  private static HttpConfiguration httpConfiguration() {
    HttpConfiguration http = new HttpConfiguration();
    http.setRequestHeaderSize(64 * 1024);
    return http;
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

  /** How many resource subscriptions the sessions and streams hold, for tests that they end. */
  int openSubscriptions() {
    int open = 0;
    for (Session session : sessions.values()) {
      McpSubscriptions legacy = session.connection.legacySubscriptionsIfAny();
      open += legacy == null ? 0 : legacy.open();
    }
    return open + streaming.size();
  }

  @Override
  public void close() {
    // Streams never finish by themselves: ended first, so shutdown does not wait.
    streaming.forEach(McpConnection::close);
    sessions.values().forEach(s -> s.connection.close());
    sessions.clear();
    try {
      server.stop();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "MCP transport did not stop cleanly", e);
    }
  }

  /** The live session of that id whose principal is the caller's, touched; null otherwise. */
  private Session session(String id, Caller caller) {
    Session session = id == null ? null : sessions.get(id);
    if (session == null) {
      return null;
    }
    long now = System.nanoTime();
    if (now - session.usedNanos > sessionIdleNanos) {
      if (sessions.remove(id, session)) {
        session.connection.close();
      }
      return null;
    }
    // Another principal's session is unknown to this caller: nothing tells it the id exists.
    if (!session.principal.equals(caller.principal())) {
      return null;
    }
    session.usedNanos = now;
    return session;
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
                e.getValue().connection.close();
              }
              return idle;
            });
  }

  /** How a connection of {@code caller} watches the change feed: as that caller. */
  private Function<ChangesRequest, ChangeStream> watcher(Caller caller) {
    return request -> service.watch(caller, request);
  }

  private final class McpHandler extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      String path = Request.getPathInContext(request);
      if (!path.equals("/mcp")) {
        drain(request, response);
        return reply(
            response,
            callback,
            404,
            McpProtocol.error(null, McpProtocol.INVALID_REQUEST, "the MCP endpoint is /mcp"));
      }
      if (!local(request)) {
        drain(request, response);
        return reply(
            response,
            callback,
            403,
            McpProtocol.error(
                null, McpProtocol.INVALID_REQUEST, "requests must come from this machine"));
      }
      Authenticated authenticated;
      try {
        authenticated = authenticate(request);
      } catch (SgmException e) {
        // Refused before the body is read: left unread, Jetty would close the kept-alive
        // connection after the answer without saying so, and the client's next request on it
        // would get no answer.
        drain(request, response);
        if (e.code() == ErrorCode.UNAUTHENTICATED) {
          response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"sgm\"");
        }
        e.retryAfterSeconds()
            .ifPresent(seconds -> response.getHeaders().put(HttpHeader.RETRY_AFTER, seconds));
        return reply(
            response,
            callback,
            e.httpStatus(),
            McpProtocol.error(null, McpProtocol.UNAUTHORIZED, e.getMessage()));
      }
      String session = request.getHeaders().get("Mcp-Session-Id");
      current.set(authenticated.caller());
      try {
        return switch (request.getMethod()) {
          case "POST" -> post(request, response, callback, authenticated, session);
          case "GET" -> get(response, callback, authenticated, session);
          case "DELETE" -> {
            Session known = session(session, authenticated.caller());
            if (known != null && sessions.remove(session, known)) {
              known.connection.close();
            }
            yield reply(response, callback, known != null ? 200 : 404, null);
          }
          default -> {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, POST, DELETE");
            yield reply(response, callback, 405, null);
          }
        };
      } finally {
        current.remove();
      }
    }

    private Authenticated authenticate(Request request) {
      String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
      String address = Request.getRemoteAddr(request);
      return new Authenticated(
          service.authenticate(ORIGIN, authorization, address), authorization, address);
    }

    private boolean get(
        Response response, Callback callback, Authenticated authenticated, String session) {
      if (session == null) {
        // A stream belongs to a 2025 session: without one there is nothing to stream.
        response.getHeaders().put(HttpHeader.ALLOW, "POST, DELETE");
        return reply(response, callback, 405, null);
      }
      Session known = session(session, authenticated.caller());
      McpSubscriptions subscribed = known == null ? null : known.connection.legacySubscriptions();
      if (subscribed == null) {
        return reply(
            response,
            callback,
            404,
            McpProtocol.error(null, McpProtocol.INVALID_REQUEST, "unknown session"));
      }
      stream(response, callback, authenticated, subscribed, null, null);
      return true;
    }

    private boolean post(
        Request request,
        Response response,
        Callback callback,
        Authenticated authenticated,
        String session)
        throws Exception {
      JsonNode body;
      try (InputStream in = Content.Source.asInputStream(request)) {
        body = Json.parse(in.readNBytes(MAX_BODY));
      } catch (SgmException e) {
        return reply(
            response,
            callback,
            400,
            McpProtocol.error(null, McpProtocol.PARSE_ERROR, "parse error: " + e.getMessage()));
      }
      if (body.isArray()) {
        return batch(response, callback, authenticated, session, (ArrayNode) body);
      }
      McpProtocol.Envelope envelope = McpProtocol.envelope(body);
      ObjectNode mismatch = headers(request, body, envelope);
      if (mismatch != null) {
        return reply(response, callback, 400, mismatch);
      }
      if (envelope.era() != McpProtocol.Era.LEGACY) {
        McpConnection connection =
            new McpConnection(fromQuery(request), watcher(authenticated.caller()));
        McpServer.Reply reply = mcp.handle(body, connection);
        if (reply.listen() != null) {
          streaming.add(connection);
          try {
            stream(
                response,
                callback,
                authenticated,
                reply.listen().subscriptions(),
                reply.listen(),
                connection);
          } finally {
            streaming.remove(connection);
          }
          return true;
        }
        connection.close();
        return reply(response, callback, reply.status(), reply.message());
      }
      boolean initializing = "initialize".equals(body.path("method").asText());
      Session known;
      String newSession = null;
      if (initializing) {
        newSession = UUID.randomUUID().toString();
        expireIdle();
        known =
            new Session(
                authenticated.caller().principal(),
                new McpConnection(fromQuery(request), watcher(authenticated.caller())));
        sessions.put(newSession, known);
      } else {
        known = session(session, authenticated.caller());
        if (known == null) {
          if (session == null && !body.has("id")) {
            return reply(response, callback, 202, null); // a stray notification
          }
          return reply(
              response,
              callback,
              session == null ? 400 : 404,
              McpProtocol.error(
                  body.get("id"),
                  session == null ? McpProtocol.INVALID_PARAMS : McpProtocol.INVALID_REQUEST,
                  session == null
                      ? "params._meta."
                          + McpProtocol.META_VERSION
                          + " is missing: a "
                          + McpProtocol.MODERN
                          + " request names its version there, and a 2025 session begins with"
                          + " initialize (then Mcp-Session-Id names it)"
                      : "unknown session"));
        }
      }
      McpServer.Reply reply = mcp.handle(body, known.connection);
      if (newSession != null) {
        response.getHeaders().put("Mcp-Session-Id", newSession);
      }
      return reply(response, callback, reply.message() == null ? 202 : 200, reply.message());
    }

    /** A JSON-RPC batch (2025-03-26): each message of the session in turn. */
    private boolean batch(
        Response response,
        Callback callback,
        Authenticated authenticated,
        String session,
        ArrayNode body) {
      for (JsonNode message : body) {
        if (message.isObject() && McpProtocol.envelope(message).era() != McpProtocol.Era.LEGACY) {
          return reply(
              response,
              callback,
              400,
              McpProtocol.error(
                  null,
                  McpProtocol.INVALID_REQUEST,
                  McpProtocol.MODERN + " requests are sent one by one, not in a batch"));
        }
      }
      Session known = session(session, authenticated.caller());
      if (known == null) {
        return reply(
            response,
            callback,
            session == null ? 400 : 404,
            McpProtocol.error(
                null,
                McpProtocol.INVALID_REQUEST,
                session == null ? "missing Mcp-Session-Id; initialize first" : "unknown session"));
      }
      ArrayNode answers = Json.array();
      for (JsonNode message : body) {
        ObjectNode one = mcp.handle(message, known.connection).message();
        if (one != null) {
          answers.add(one);
        }
      }
      return reply(
          response, callback, answers.isEmpty() ? 202 : 200, answers.isEmpty() ? null : answers);
    }

    /**
     * The headers that mirror the body (2026-07-28), checked against it: {@code
     * MCP-Protocol-Version} and {@code Mcp-Method} on every request, and {@code Mcp-Name} where the
     * method names a target. Null when they agree; else the {@code -32020} error to answer with. A
     * header that disagrees is refused in either era; a 2025 request need not send them.
     */
    private ObjectNode headers(Request request, JsonNode body, McpProtocol.Envelope envelope) {
      JsonNode id = body.get("id");
      boolean isRequest = id != null && body.has("method");
      // The version the body claims, whether or not it is served: a header that disagrees with
      // it is a mismatch before it is an unsupported version.
      JsonNode claim = body.path("params").path("_meta").path(McpProtocol.META_VERSION);
      String claimed = claim.isTextual() ? claim.textValue() : null;
      boolean modern = envelope.era() != McpProtocol.Era.LEGACY && claimed != null;
      String method = body.path("method").asText(null);
      String version = header(request, "MCP-Protocol-Version");
      if (modern && isRequest) {
        if (version == null || !version.equals(claimed)) {
          return mismatch(
              id,
              "MCP-Protocol-Version",
              version,
              claimed,
              "must name the version of params._meta");
        }
      } else if (isRequest
          && McpProtocol.MODERN.equals(version)
          && envelope.era() == McpProtocol.Era.LEGACY) {
        ObjectNode data = Json.object();
        data.putObject("envelope")
            .putArray("missing")
            .add(McpProtocol.META_VERSION)
            .add(McpProtocol.META_CAPABILITIES);
        return McpProtocol.error(
            id,
            McpProtocol.INVALID_PARAMS,
            "the MCP-Protocol-Version header names "
                + McpProtocol.MODERN
                + ", but params._meta does not carry "
                + McpProtocol.META_VERSION
                + " and "
                + McpProtocol.META_CAPABILITIES,
            data);
      }
      String methodHeader = header(request, "Mcp-Method");
      if (methodHeader != null ? !methodHeader.equals(method) : modern && isRequest) {
        return mismatch(id, "Mcp-Method", methodHeader, method, "must name the body's method");
      }
      String field = method == null ? null : NAMED.get(method);
      String nameHeader = header(request, "Mcp-Name");
      if (field != null) {
        JsonNode target = body.path("params").path(field);
        String expected = target.isTextual() ? target.textValue() : null;
        if (nameHeader != null
            ? !nameHeader.equals(expected)
            : modern && isRequest && expected != null) {
          return mismatch(
              id, "Mcp-Name", nameHeader, expected, "must name the body's params." + field);
        }
      }
      return null;
    }

    private static ObjectNode mismatch(
        JsonNode id, String header, String sent, String body, String rule) {
      ObjectNode data = Json.object();
      ObjectNode detail = data.putObject("mismatch");
      detail.put("header", header);
      detail.put("sent", sent);
      detail.put("body", body);
      return McpProtocol.error(
          id,
          McpProtocol.HEADER_MISMATCH,
          "Header mismatch: "
              + header
              + (sent == null ? " is missing" : " is '" + sent + "'")
              + "; it "
              + rule
              + (body == null ? "" : " ('" + body + "')"),
          data);
    }

    /** A header's value, trimmed, with the protocol's Base64 form decoded; null when absent. */
    private static String header(Request request, String name) {
      String value = request.getHeaders().get(name);
      if (value == null) {
        return null;
      }
      value = value.strip();
      if (value.startsWith("=?base64?") && value.endsWith("?=") && value.length() >= 11) {
        try {
          return new String(
              Base64.getDecoder().decode(value.substring(9, value.length() - 2)),
              StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
          return value;
        }
      }
      return value;
    }

    /**
     * A stream of server-sent events: {@code listen}'s acknowledgement first (2026), then the
     * notifications of {@code subscribed}, with heartbeat comments while idle, until the client
     * leaves, the server ends it, or the caller's token no longer holds (then an error ends it).
     */
    private void stream(
        Response response,
        Callback callback,
        Authenticated authenticated,
        McpSubscriptions subscribed,
        McpServer.Listen listen,
        McpConnection connection) {
      response.setStatus(200);
      response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
      response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
      response.getHeaders().put("X-Accel-Buffering", "no");
      try (OutputStream out = Content.Sink.asOutputStream(response)) {
        if (listen != null) {
          event(out, listen.acknowledgement());
        } else {
          out.write(": stream open\n\n".getBytes(StandardCharsets.UTF_8));
          out.flush();
        }
        long lastWrite = System.nanoTime();
        long recheckMillis = Math.min(heartbeatMillis, RECHECK.toMillis());
        while (!subscribed.closed()) {
          ObjectNode notification = subscribed.next(Duration.ofMillis(recheckMillis));
          SgmException refused = stillAuthenticated(authenticated);
          if (refused != null) {
            JsonNode id = listen == null ? null : listen.id();
            event(out, McpProtocol.error(id, McpProtocol.UNAUTHORIZED, refused.getMessage()));
            break;
          }
          if (notification != null) {
            event(out, notification);
            lastWrite = System.nanoTime();
          } else if (System.nanoTime() - lastWrite
              >= TimeUnit.MILLISECONDS.toNanos(heartbeatMillis)) {
            out.write(": heartbeat\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            lastWrite = System.nanoTime();
          }
        }
        if (listen != null && subscribed.closed() && stillAuthenticated(authenticated) == null) {
          event(out, listen.ended());
        }
        callback.succeeded();
      } catch (IOException e) {
        callback.failed(e); // the client left: its subscription ends below
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        callback.failed(e);
      } finally {
        // A 2026 listen ends with its stream; a 2025 session keeps its subscriptions for the
        // next GET.
        if (connection != null) {
          connection.close();
        }
      }
    }

    /** Null while the stream's token still holds; else why it no longer does. */
    private SgmException stillAuthenticated(Authenticated authenticated) {
      try {
        Caller now =
            service.authenticate(ORIGIN, authenticated.authorization(), authenticated.address());
        return Objects.equals(now.principal(), authenticated.caller().principal())
            ? null
            : new SgmException(ErrorCode.UNAUTHENTICATED, "the token's principal changed");
      } catch (SgmException e) {
        return e;
      }
    }

    private static void event(OutputStream out, JsonNode message) throws IOException {
      out.write(
          ("event: message\ndata: " + Json.write(message) + "\n\n")
              .getBytes(StandardCharsets.UTF_8));
      out.flush();
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
      return allowedHosts.contains(name.toLowerCase(Locale.ROOT));
    }

    /** Reads and drops a request's body (up to a bound), so the connection stays usable. */
    private static void drain(Request request, Response response) {
      try (InputStream in = Content.Source.asInputStream(request)) {
        byte[] buffer = new byte[16 * 1024];
        long read = 0;
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
          read += n;
          if (read > MAX_BODY) {
            response.getHeaders().put(HttpHeader.CONNECTION, "close");
            break;
          }
        }
      } catch (IOException unread) {
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
      }
    }

    private boolean reply(Response response, Callback callback, int status, JsonNode body) {
      response.setStatus(status);
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
