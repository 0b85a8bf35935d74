package dev.sgm.transport.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * What the messages of one MCP connection share: the defaults its tool calls fill in, how it
 * watches the change feed, and the state the 2025 revisions keep between requests (the version
 * {@code initialize} agreed on, and the resource subscriptions of the session). A stdio process is
 * one connection for its whole life; over Streamable HTTP a 2025 session is one, and each 2026
 * request stands alone with a connection of its own. The live {@code subscriptions/listen} streams
 * of the connection are kept by their request id, so that {@code notifications/cancelled} can end
 * one.
 */
final class McpConnection implements AutoCloseable {
  private final McpDefaults defaults;
  private final Function<ChangesRequest, ChangeStream> watcher;
  private final boolean subscriptions;
  private volatile String legacyVersion;
  private volatile McpSubscriptions legacySubscriptions;
  private final Map<JsonNode, McpSubscriptions> listens = new ConcurrentHashMap<>();

  /**
   * @param defaults what tool calls fill in
   * @param watcher how this connection watches the change feed; null when it offers no
   *     subscriptions
   */
  McpConnection(McpDefaults defaults, Function<ChangesRequest, ChangeStream> watcher) {
    this.defaults = defaults;
    this.watcher = watcher;
    this.subscriptions = watcher != null;
  }

  McpDefaults defaults() {
    return defaults;
  }

  /** Whether resource subscriptions are offered here. */
  boolean offersSubscriptions() {
    return subscriptions;
  }

  /** The 2025 revision {@code initialize} agreed on; null before it. */
  String legacyVersion() {
    return legacyVersion;
  }

  void initialized(String version) {
    legacyVersion = version;
  }

  /** The 2025 session's resource subscriptions, made on first use; null when none are offered. */
  synchronized McpSubscriptions legacySubscriptions() {
    if (legacySubscriptions == null && subscriptions) {
      legacySubscriptions = new McpSubscriptions(watcher, null);
    }
    return legacySubscriptions;
  }

  /** The 2025 session's subscriptions if it has made any, else null. */
  McpSubscriptions legacySubscriptionsIfAny() {
    return legacySubscriptions;
  }

  /** A new {@code subscriptions/listen} stream of this connection, tagged with its request id. */
  McpSubscriptions listen(JsonNode id) {
    McpSubscriptions listen = new McpSubscriptions(watcher, id);
    McpSubscriptions before = listens.put(id, listen);
    if (before != null) {
      before.close();
    }
    return listen;
  }

  /** Forgets a listen stream that has ended. */
  void ended(JsonNode id, McpSubscriptions listen) {
    listens.remove(id, listen);
  }

  /** Ends the listen stream of that request id ({@code notifications/cancelled}). */
  void cancel(JsonNode requestId) {
    McpSubscriptions listen = requestId == null ? null : listens.remove(requestId);
    if (listen != null) {
      listen.close();
    }
  }

  @Override
  public void close() {
    listens.values().forEach(McpSubscriptions::close);
    listens.clear();
    McpSubscriptions legacy = legacySubscriptions;
    if (legacy != null) {
      legacy.close();
    }
  }
}
