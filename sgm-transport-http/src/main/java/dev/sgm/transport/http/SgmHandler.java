package dev.sgm.transport.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.DiscoverRequest;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.ProtocolVersion;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.StoredContent;
import dev.sgm.transport.http.spi.WebApp;
import dev.sgm.transport.http.spi.WebResource;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * Translates HTTP to SGM operations and back. It decides nothing itself: every request becomes one
 * call on {@link SgmService}, and every {@link SgmException} becomes the contract's error object
 * with the status of its code. Malformed input of any kind is a 4xx with an error object, never a
 * 500 or a trace.
 */
final class SgmHandler extends Handler.Abstract {
  private static final System.Logger LOG = System.getLogger(SgmHandler.class.getName());
  private static final String JSON = "application/json";
  private static final Pattern HASH = Pattern.compile("[0-9a-f]{64}");
  private static final Caller CALLER = Caller.anonymous("http");

  /**
   * The fixed routes besides {@code POST /v1/{op}}; the OpenAPI document is generated from these.
   */
  static final List<Route> FIXED_ROUTES =
      List.of(
          new Route("GET", "/v1/discovery", Operations.DISCOVER, "The discovery document."),
          new Route(
              "GET",
              "/.well-known/sgm",
              Operations.DISCOVER,
              "The discovery document, at its well-known address."),
          new Route("GET", "/v1/content/{hash}", "content", "Content kept by its SHA-256 hash."),
          new Route(
              "GET",
              "/v1/watch",
              "watch",
              "The change feed as server-sent events: ?scope=<canonical>&scope_mode=&since=&types=;"
                  + " each event's id is its cursor, and Last-Event-ID resumes."),
          new Route(
              "GET",
              "/healthz",
              "health",
              "Health: 200 while the server and its storage answer, 503 while the storage is out of"
                  + " reach."),
          new Route("GET", "/openapi.json", "openapi", "This API's OpenAPI 3.1 description."));

  /** A route: method, path template, what it does. */
  record Route(String method, String path, String name, String summary) {}

  /** The most of a refused body read and thrown away so that its sender gets the answer. */
  private static final long DISCARD_LIMIT = 64L * 1024 * 1024;

  private final SgmService service;
  private final HttpSettings settings;
  private final OpenApiDocument openApi;
  private final WatchStreams watches;
  private final List<WebApp> webApps;

  SgmHandler(SgmService service, HttpSettings settings, List<WebApp> webApps) {
    this.service = service;
    this.webApps = List.copyOf(webApps);
    this.settings = settings;
    this.watches = new WatchStreams(settings.heartbeatMillis());
    this.openApi =
        new OpenApiDocument(
            service.discover(CALLER, DiscoverRequest.any()).operations(), FIXED_ROUTES);
  }

  /** A response to send. */
  private record Reply(
      int status, String contentType, byte[] body, java.util.Map<String, String> headers) {
    Reply(int status, String contentType, byte[] body) {
      this(status, contentType, body, java.util.Map.of());
    }

    static Reply json(JsonNode node) {
      return new Reply(200, JSON, Json.writeBytes(node));
    }

    static Reply error(int status, SgmException e) {
      return new Reply(status, JSON, Json.writeBytes(e.toJson()));
    }
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) {
    long started = System.nanoTime();
    String method = request.getMethod();
    String path = Request.getPathInContext(request);
    Reply reply;
    boolean challenge = false;
    try {
      checkProtocolVersion(request);
      if (path.equals("/v1/watch") && method.equals("GET")) {
        Caller caller =
            service.authenticate(
                CALLER.origin(),
                request.getHeaders().get(HttpHeader.AUTHORIZATION),
                Request.getRemoteAddr(request));
        ChangeStream stream = service.watch(caller, watchRequest(request));
        watches.stream(stream, response, callback);
        return true;
      }
      // HEAD is GET without the body (RFC 9110 §9.3.2): a page or a probe answers alike.
      reply = route(method.equals("HEAD") ? "GET" : method, path, request);
    } catch (HttpProblem e) {
      reply = Reply.error(e.status, e.error);
    } catch (SgmException e) {
      reply = Reply.error(e.httpStatus(), e);
      challenge = e.code() == ErrorCode.UNAUTHENTICATED;
      e.retryAfterSeconds()
          .ifPresent(seconds -> response.getHeaders().put(HttpHeader.RETRY_AFTER, seconds));
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "failed: " + method + " " + path, e);
      reply =
          Reply.error(500, new SgmException(ErrorCode.INTERNAL, "the server failed; see its log"));
    }
    if (reply.status() >= 400) {
      discardUnread(request);
    }
    response.setStatus(reply.status());
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, reply.contentType());
    response.getHeaders().put("SGM-Protocol-Version", ProtocolVersion.CURRENT.toString());
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    if (challenge) {
      response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, "Bearer realm=\"sgm\"");
    }
    reply.headers().forEach((name, value) -> response.getHeaders().put(name, value));
    if (method.equals("HEAD")) {
      response.getHeaders().put(HttpHeader.CONTENT_LENGTH, reply.body().length);
      response.write(true, null, callback);
    } else {
      response.write(true, ByteBuffer.wrap(reply.body()), callback);
    }
    if (settings.logRequests()) {
      LOG.log(
          System.Logger.Level.INFO,
          String.format(
              Locale.ROOT,
              "%s %s %d %.1f ms %d B",
              method,
              path,
              reply.status(),
              (System.nanoTime() - started) / 1e6,
              reply.body().length));
    }
    return true;
  }

  /** The open watch streams. */
  WatchStreams watches() {
    return watches;
  }

  /**
   * A watch's request from the query ({@code scope} as a canonical scope string, {@code
   * scope_mode}, {@code since}, {@code types} comma-separated); {@code Last-Event-ID} wins over
   * {@code since}, as a reconnecting event source sends it.
   */
  private static ChangesRequest watchRequest(Request request) {
    Fields query = Request.extractQueryParameters(request);
    ObjectNode json = Json.object();
    for (Fields.Field field : query) {
      switch (field.getName()) {
        case "scope" -> {
          String scope = field.getValue();
          if (scope == null || scope.isEmpty()) {
            throw SgmException.invalidRequest("scope", "is required, e.g. scope=project=demo");
          }
          json.set("scope", Scope.parseCanonical(scope).toJson());
        }
        case "types" -> {
          com.fasterxml.jackson.databind.node.ArrayNode types = json.putArray("types");
          for (String type : field.getValue().split(",", -1)) {
            types.add(type.trim());
          }
        }
        default -> json.put(field.getName(), field.getValue());
      }
    }
    String lastEventId = request.getHeaders().get("Last-Event-ID");
    if (lastEventId != null && !lastEventId.isBlank()) {
      json.put("since", lastEventId.trim());
    }
    return ChangesRequest.fromJson(json);
  }

  /** An error whose HTTP status is not the one its code maps to (405, 415). */
  private static final class HttpProblem extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final SgmException error;

    HttpProblem(int status, SgmException error) {
      super(error.getMessage(), null, false, false);
      this.status = status;
      this.error = error;
    }
  }

  /** 200 while the service can answer, 503 while its storage is out of reach; no token needed. */
  private Reply health() {
    JsonNode health = service.health();
    int status = "ok".equals(health.path("status").asText()) ? 200 : 503;
    return new Reply(status, JSON, Json.writeBytes(health));
  }

  private Reply route(String method, String path, Request request) {
    if (path.equals("/healthz")) {
      requireMethod(method, "GET", path);
      return health();
    }
    if (method.equals("GET") && !isApiPath(path)) {
      // Before authentication: a web app's page loads first, then asks the person for a token.
      for (WebApp app : webApps) {
        Optional<WebResource> resource = app.get(path);
        if (resource.isPresent()) {
          WebResource found = resource.get();
          return new Reply(200, found.contentType(), found.body(), found.headers());
        }
      }
    }
    // Every route but liveness answers to the caller the request's token names.
    Caller caller =
        service.authenticate(
            CALLER.origin(),
            request.getHeaders().get(HttpHeader.AUTHORIZATION),
            Request.getRemoteAddr(request));
    if (path.startsWith("/v1/") && path.indexOf('/', 4) < 0 && !path.equals("/v1/discovery")) {
      requireMethod(method, "POST", path);
      String operation = path.substring(4);
      return Reply.json(service.invoke(caller, operation, readJson(request)));
    }
    if (path.startsWith("/v1/content/")) {
      requireMethod(method, "GET", path);
      return content(caller, path.substring("/v1/content/".length()));
    }
    for (Route route : FIXED_ROUTES) {
      if (route.path().equals(path)) {
        requireMethod(method, route.method(), path);
        return switch (route.name()) {
          case Operations.DISCOVER ->
              Reply.json(service.discover(caller, DiscoverRequest.any()).toJson());
          case "health" -> health();
          default -> Reply.json(openApi.document());
        };
      }
    }
    throw new SgmException(
        ErrorCode.NOT_FOUND,
        "no route " + method + " " + path + "; the routes are listed at /openapi.json");
  }

  /** The paths the API keeps for itself, which no web app may answer. */
  private static boolean isApiPath(String path) {
    return path.equals("/v1")
        || path.startsWith("/v1/")
        || path.equals("/healthz")
        || path.equals("/openapi.json")
        || path.startsWith("/.well-known/");
  }

  private static void requireMethod(String method, String allowed, String path) {
    if (!method.equals(allowed)) {
      throw new HttpProblem(
          405,
          new SgmException(
              ErrorCode.INVALID_REQUEST, path + " takes " + allowed + ", not " + method));
    }
  }

  private Reply content(Caller caller, String hash) {
    if (!HASH.matcher(hash).matches()) {
      throw SgmException.invalidRequest("hash", "must be 64 lowercase hexadecimal characters");
    }
    Optional<StoredContent> content = service.getContent(caller, hash);
    StoredContent held =
        content.orElseThrow(
            () -> new SgmException(ErrorCode.NOT_FOUND, "no content " + hash + " is held here"));
    String type =
        "utf-8".equals(held.reference().encoding())
            ? "text/plain; charset=utf-8"
            : "application/octet-stream";
    return new Reply(200, type, held.bytes());
  }

  private static void checkProtocolVersion(Request request) {
    String header = request.getHeaders().get("SGM-Protocol-Version");
    if (header == null || header.isBlank()) {
      return;
    }
    ProtocolVersion asked;
    try {
      asked = ProtocolVersion.parse(header.trim());
    } catch (SgmException e) {
      throw SgmException.invalidRequest(
          "SGM-Protocol-Version", "'" + header + "' is not a semantic version such as 0.1.0");
    }
    if (!asked.isCompatibleWith(ProtocolVersion.CURRENT)) {
      String reason =
          "version "
              + asked
              + " is not compatible with the supported versions ["
              + ProtocolVersion.CURRENT
              + "]";
      throw new SgmException(
          ErrorCode.UNSUPPORTED_VERSION,
          reason,
          List.of(new FieldError("SGM-Protocol-Version", reason)));
    }
  }

  /**
   * The request body as JSON: {@code {}} when empty; otherwise it must be JSON within the size
   * limit.
   */
  private JsonNode readJson(Request request) {
    byte[] body = readBody(request);
    if (body.length == 0) {
      return Json.object();
    }
    String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (type == null || !type.toLowerCase(Locale.ROOT).trim().startsWith(JSON)) {
      throw new HttpProblem(
          415,
          SgmException.invalidRequest(
              "Content-Type",
              "must be application/json, was " + (type == null ? "absent" : "'" + type + "'")));
    }
    if (type.toLowerCase(Locale.ROOT).contains("charset=")
        && !type.toLowerCase(Locale.ROOT).replace(" ", "").contains("charset=utf-8")) {
      throw new HttpProblem(
          415,
          SgmException.invalidRequest(
              "Content-Type", "the charset must be utf-8, was '" + type + "'"));
    }
    JsonNode json = Json.parse(body);
    if (!json.isObject()) {
      throw SgmException.invalidRequest("body", "must be a JSON object");
    }
    return (ObjectNode) json;
  }

  /**
   * Reads and drops the body of a request refused before its body was read (a bad token, a wrong
   * method or content type). Left unread, Jetty closes the kept-alive connection after the answer
   * without saying so, and a client that sends its next request on it gets no answer at all.
   */
  private static void discardUnread(Request request) {
    boolean hasBody =
        request.getLength() > 0 || request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
    if (hasBody
        && request.getAttribute(BODY_READ) == null
        && !request.getHeaders().contains(HttpHeader.EXPECT, "100-continue")) {
      try (InputStream in = Content.Source.asInputStream(request)) {
        discard(in);
      } catch (IOException e) {
        // The client went away; there is nobody left to answer.
      }
    }
  }

  /** The request attribute that marks a body as read to its end (or refused and discarded). */
  private static final String BODY_READ = SgmHandler.class.getName() + ".bodyRead";

  private byte[] readBody(Request request) {
    request.setAttribute(BODY_READ, Boolean.TRUE);
    long limit = settings.maxBodyBytes();
    long declared = request.getLength();
    try (InputStream in = Content.Source.asInputStream(request)) {
      if (declared > limit) {
        // A client that asked first (Expect: 100-continue) has not sent the body and will not.
        if (!request.getHeaders().contains(HttpHeader.EXPECT, "100-continue")) {
          discard(in);
        }
        throw tooLarge(declared);
      }
      byte[] body = in.readNBytes((int) Math.min(Integer.MAX_VALUE - 8, limit + 1));
      if (body.length > limit) {
        discard(in);
        throw tooLarge(-1);
      }
      return body;
    } catch (IOException e) {
      throw SgmException.invalidRequest("body", "could not be read: " + e.getMessage());
    }
  }

  /**
   * Reads and drops the rest of a body refused as too large, up to {@link #DISCARD_LIMIT}. Closing
   * the connection under a client that is still sending would reset it before it reads the 413;
   * past the limit the server stops reading and closes the connection after answering.
   */
  private static void discard(InputStream in) {
    byte[] buffer = new byte[64 * 1024];
    long read = 0;
    try {
      for (int n = in.read(buffer); n >= 0 && read < DISCARD_LIMIT; n = in.read(buffer)) {
        read += n;
      }
    } catch (IOException e) {
      // The client went away; there is nobody left to answer.
    }
  }

  private SgmException tooLarge(long declared) {
    return new SgmException(
        ErrorCode.TOO_LARGE,
        "body: "
            + (declared >= 0 ? "is " + declared + " bytes; " : "")
            + "the limit is "
            + settings.maxBodyBytes()
            + " bytes",
        List.of(new FieldError("body", "larger than " + settings.maxBodyBytes() + " bytes")));
  }
}
