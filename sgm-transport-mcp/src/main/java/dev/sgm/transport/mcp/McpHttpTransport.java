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
import java.nio.ByteBuffer;
import java.util.List;
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

  /** The origin of the calls made over this transport. */
  static final String ORIGIN = "mcp";

  /** The largest request body read. */
  private static final int MAX_BODY = 8 * 1024 * 1024;

  private final String host;
  private final int port;
  private final McpServer mcp;
  private final McpDefaults configured;
  private final SgmService service;
  private final Server server;
  private final ServerConnector connector;
  private final java.nio.file.Path tlsCert;
  private final boolean plaintext;
  private final McpRequestChecks checks;
  private final McpSessions sessions;
  private final McpEventStreams streams;

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
    this.streams =
        new McpEventStreams(service, Math.max(10, config.getLong("watch.heartbeat-ms", 15_000)));
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
    this.checks = new McpRequestChecks(config, host);
    this.sessions =
        new McpSessions(
            TimeUnit.MILLISECONDS.toNanos(config.getLong("mcp.session-idle-ms", 30L * 60 * 1000)));
    this.tlsCert = config.get("mcp.tls.cert").map(java.nio.file.Path::of).orElse(null);
    this.plaintext = config.getBoolean(Listening.PLAINTEXT, false);
    this.connector = connector(config, server, tlsCert);
    connector.setHost(host);
    connector.setPort(port);
    server.addConnector(connector);
    server.setHandler(new McpHandler());
    server.setErrorHandler(new McpErrorHandler());
    server.setStopTimeout(10_000);
  }

  /** Plain HTTP, or TLS with the PEM pair of {@code mcp.tls.cert} and {@code mcp.tls.key}. */
  private static ServerConnector connector(
      Config config, Server server, java.nio.file.Path tlsCert) {
    if (tlsCert == null) {
      return new ServerConnector(server, new HttpConnectionFactory(httpConfiguration()));
    }
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
    return new ServerConnector(
        server, new SslConnectionFactory(tls, "http/1.1"), new HttpConnectionFactory(https));
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
    Listening.bind(host, port, "mcp.port", server::start);
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
    return sessions.openSubscriptions() + streams.listening();
  }

  @Override
  public void close() {
    // Streams never finish by themselves: ended first, so shutdown does not wait.
    streams.closeAll();
    sessions.closeAll();
    try {
      server.stop();
    } catch (Exception e) {
      LOG.log(System.Logger.Level.WARNING, "MCP transport did not stop cleanly", e);
    }
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
      if (!checks.local(request)) {
        drain(request, response);
        return reply(
            response,
            callback,
            403,
            McpProtocol.error(
                null, McpProtocol.INVALID_REQUEST, "requests must come from this machine"));
      }
      McpHttpCaller caller;
      try {
        caller = McpHttpCaller.authenticate(service, request);
      } catch (SgmException e) {
        return refuse(request, response, callback, e);
      }
      String session = request.getHeaders().get("Mcp-Session-Id");
      current.set(caller.caller());
      try {
        return switch (request.getMethod()) {
          case "POST" -> post(request, response, callback, caller, session);
          case "GET" -> get(response, callback, caller, session);
          case "DELETE" ->
              reply(response, callback, sessions.end(session, caller.caller()) ? 200 : 404, null);
          default -> {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, POST, DELETE");
            yield reply(response, callback, 405, null);
          }
        };
      } finally {
        current.remove();
      }
    }

    /** Answers a request whose caller was not authenticated. */
    private boolean refuse(Request request, Response response, Callback callback, SgmException e) {
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

    private boolean get(
        Response response, Callback callback, McpHttpCaller caller, String session) {
      if (session == null) {
        // A stream belongs to a 2025 session: without one there is nothing to stream.
        response.getHeaders().put(HttpHeader.ALLOW, "POST, DELETE");
        return reply(response, callback, 405, null);
      }
      McpConnection known = sessions.find(session, caller.caller());
      McpSubscriptions subscribed = known == null ? null : known.legacySubscriptions();
      if (subscribed == null) {
        return reply(
            response,
            callback,
            404,
            McpProtocol.error(null, McpProtocol.INVALID_REQUEST, "unknown session"));
      }
      streams.session(response, callback, caller, subscribed);
      return true;
    }

    private boolean post(
        Request request, Response response, Callback callback, McpHttpCaller caller, String session)
        throws IOException {
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
        return batch(response, callback, caller, session, (ArrayNode) body);
      }
      McpProtocol.Envelope envelope = McpProtocol.envelope(body);
      ObjectNode mismatch = McpRequestChecks.headerMismatch(request, body, envelope);
      if (mismatch != null) {
        return reply(response, callback, 400, mismatch);
      }
      if (envelope.era() != McpProtocol.Era.LEGACY) {
        return standalone(request, response, callback, caller, body);
      }
      return inSession(request, response, callback, caller, session, body);
    }

    /** A 2026-07-28 request: on a connection of its own, which a listen keeps while it streams. */
    private boolean standalone(
        Request request,
        Response response,
        Callback callback,
        McpHttpCaller caller,
        JsonNode body) {
      McpConnection connection = new McpConnection(fromQuery(request), watcher(caller.caller()));
      McpServer.Reply reply = mcp.handle(body, connection);
      if (reply.listen() != null) {
        streams.listen(response, callback, caller, reply.listen(), connection);
        return true;
      }
      connection.close();
      return reply(response, callback, reply.status(), reply.message());
    }

    /** A 2025 request: {@code initialize} begins a session, any other belongs to one. */
    private boolean inSession(
        Request request,
        Response response,
        Callback callback,
        McpHttpCaller caller,
        String session,
        JsonNode body) {
      McpConnection known;
      String newSession = null;
      if ("initialize".equals(body.path("method").asText())) {
        known = new McpConnection(fromQuery(request), watcher(caller.caller()));
        newSession = sessions.begin(caller.caller().principal(), known);
      } else {
        known = sessions.find(session, caller.caller());
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
      McpServer.Reply reply = mcp.handle(body, known);
      if (newSession != null) {
        response.getHeaders().put("Mcp-Session-Id", newSession);
      }
      return reply(response, callback, reply.message() == null ? 202 : 200, reply.message());
    }

    /** A JSON-RPC batch (2025-03-26): each message of the session in turn. */
    private boolean batch(
        Response response,
        Callback callback,
        McpHttpCaller caller,
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
      McpConnection known = sessions.find(session, caller.caller());
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
        ObjectNode one = mcp.handle(message, known).message();
        if (one != null) {
          answers.add(one);
        }
      }
      return reply(
          response, callback, answers.isEmpty() ? 202 : 200, answers.isEmpty() ? null : answers);
    }

    private McpDefaults fromQuery(Request request) {
      Fields query = Request.extractQueryParameters(request);
      String project = query.getValue("project");
      String agent = query.getValue("agent");
      return new McpDefaults(
          project != null ? Json.object().put("project", project) : configured.scope(),
          agent != null ? agent : configured.agent());
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
