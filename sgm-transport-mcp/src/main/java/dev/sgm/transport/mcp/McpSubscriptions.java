package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One MCP session's resource subscriptions ({@code resources/subscribe} on a record URI or a scope
 * URI {@code sgm://scope/{canonical}}): each follows the change feed through a watch of the shared
 * notifier, and every change of a subscribed record (or of any record of a subscribed scope)
 * becomes a pending {@code notifications/resources/updated} for the record's URI. Pending
 * notifications are kept as a set of URIs, so a session whose stream is slow or absent holds at
 * most one per record, never a growing queue.
 *
 * <p>Once the client has listed the resources of its default scope, a record created in or deleted
 * from that scope also makes a pending {@code notifications/resources/list_changed}.
 */
final class McpSubscriptions implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(McpSubscriptions.class.getName());

  /** The most records a session keeps notifications pending for. */
  private static final int MAX_PENDING = 10_000;

  /** The pending entry that stands for {@code notifications/resources/list_changed}. */
  private static final String LIST_CHANGED = "";

  private static final String RECORD = "sgm://record/";
  private static final String SCOPE = "sgm://scope/";

  private final Function<ChangesRequest, ChangeStream> watcher;

  /** The {@code subscriptions/listen} request's id that tags each notification; null in 2025. */
  private final JsonNode subscriptionId;

  private final Map<String, ChangeStream> subscribed = new ConcurrentHashMap<>();
  private final LinkedHashSet<String> pending = new LinkedHashSet<>();
  private volatile boolean closed;

  /**
   * @param watcher how to watch the change feed
   * @param subscriptionId the id of the {@code subscriptions/listen} request these notifications
   *     answer (2026-07-28), or null for a 2025 session's {@code resources/subscribe}
   */
  McpSubscriptions(Function<ChangesRequest, ChangeStream> watcher, JsonNode subscriptionId) {
    this.watcher = watcher;
    this.subscriptionId = subscriptionId;
  }

  /** Subscribes to {@code uri}; subscribing again changes nothing. */
  void subscribe(String uri) {
    Target target = target(uri);
    follow(
        uri,
        target.scope(),
        event -> {
          if (target.id() == null || target.id().equals(event.id())) {
            notify(McpServer.uri(event.scope().toJson(), event.id()));
          }
        });
  }

  /**
   * Tells the client when the list of {@code scope}'s records changes (a record created, deleted or
   * restored there); following it again changes nothing.
   */
  void followList(Scope scope) {
    follow(
        "list " + scope.canonical(),
        scope,
        event -> {
          boolean created = event.kind().equals("stored") && event.version() == 1;
          // A lapsed lease ("expired") changes a task, not the list.
          if (created || event.kind().equals("deleted") || event.kind().equals("restored")) {
            notify(LIST_CHANGED);
          }
        });
  }

  /**
   * Watches {@code scope} under {@code key} on a thread of its own, handing each event to {@code
   * onEvent}, unless {@code key} is followed already.
   */
  private void follow(String key, Scope scope, Consumer<ChangeEvent> onEvent) {
    if (closed || subscribed.containsKey(key)) {
      return;
    }
    ChangeStream stream = watcher.apply(ChangesRequest.of(scope));
    if (subscribed.putIfAbsent(key, stream) != null) {
      stream.close();
      return;
    }
    Thread.ofVirtual().name("sgm-mcp-subscription").start(() -> pump(key, stream, onEvent));
  }

  /** Ends the subscription to {@code uri}, if there is one. */
  void unsubscribe(String uri) {
    target(uri);
    ChangeStream stream = subscribed.remove(uri);
    if (stream != null) {
      stream.close();
    }
  }

  /** How many subscriptions (and followed lists) are open. */
  int open() {
    return subscribed.size();
  }

  private void pump(String key, ChangeStream stream, Consumer<ChangeEvent> onEvent) {
    try {
      while (!closed && subscribed.get(key) == stream) {
        for (ChangeEvent event : stream.poll(Duration.ofSeconds(5)).events()) {
          onEvent.accept(event);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (SgmException e) {
      // The watch ended (the server shuts down) or failed as the protocol says it may.
      LOG.log(
          System.Logger.Level.DEBUG, "the subscription to " + key + " stopped: " + e.getMessage());
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "the subscription to " + key + " stopped", e);
    } finally {
      stream.close();
    }
  }

  private void notify(String uri) {
    synchronized (pending) {
      if (pending.size() < MAX_PENDING || pending.contains(uri)) {
        pending.add(uri);
      }
      pending.notifyAll();
    }
  }

  /** The next notification to send, waiting up to {@code timeout}; null when none came. */
  ObjectNode next(Duration timeout) throws InterruptedException {
    String uri;
    synchronized (pending) {
      long deadline = System.nanoTime() + timeout.toNanos();
      while (pending.isEmpty() && !closed) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return null;
        }
        pending.wait(Math.max(1, left / 1_000_000));
      }
      if (closed) {
        return null;
      }
      Iterator<String> first = pending.iterator();
      uri = first.next();
      first.remove();
    }
    ObjectNode notification = Json.object();
    notification.put("jsonrpc", "2.0");
    ObjectNode params = Json.object();
    if (subscriptionId != null) {
      params.putObject("_meta").set(McpProtocol.META_SUBSCRIPTION, subscriptionId);
    }
    if (uri.equals(LIST_CHANGED)) {
      notification.put("method", "notifications/resources/list_changed");
    } else {
      notification.put("method", "notifications/resources/updated");
      params.put("uri", uri);
    }
    if (!params.isEmpty()) {
      notification.set("params", params);
    }
    return notification;
  }

  boolean closed() {
    return closed;
  }

  @Override
  public void close() {
    closed = true;
    subscribed.values().forEach(ChangeStream::close);
    subscribed.clear();
    synchronized (pending) {
      pending.clear();
      pending.notifyAll();
    }
  }

  /** What a URI subscribes to: a scope, and one record of it or (null) every record. */
  record Target(Scope scope, String id) {}

  static Target target(String uri) {
    if (uri != null && uri.startsWith(SCOPE) && uri.length() > SCOPE.length()) {
      return new Target(
          Scope.parseCanonical(
              URLDecoder.decode(uri.substring(SCOPE.length()), StandardCharsets.UTF_8)),
          null);
    }
    if (uri != null && uri.startsWith(RECORD)) {
      int slash = uri.indexOf('/', RECORD.length());
      if (slash > 0 && slash < uri.length() - 1) {
        String canonical =
            URLDecoder.decode(uri.substring(RECORD.length(), slash), StandardCharsets.UTF_8);
        String id = URLDecoder.decode(uri.substring(slash + 1), StandardCharsets.UTF_8);
        return new Target(Scope.parseCanonical(canonical), id);
      }
    }
    throw SgmException.invalidRequest(
        "uri", "'" + uri + "' is neither sgm://record/{scope}/{id} nor sgm://scope/{scope}");
  }

  /** The URI of a whole scope's records. */
  static String scopeUri(Scope scope) {
    return SCOPE + URLEncoder.encode(scope.canonical(), StandardCharsets.UTF_8);
  }
}
