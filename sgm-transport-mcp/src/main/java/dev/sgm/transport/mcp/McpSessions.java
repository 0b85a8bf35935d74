package dev.sgm.transport.mcp;

import dev.sgm.api.Caller;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The 2025 sessions of the Streamable HTTP endpoint, by their {@code Mcp-Session-Id}: each belongs
 * to the principal that began it and ends once idle too long.
 */
final class McpSessions {
  private final long idleNanos;
  private final Map<String, Session> sessions = new ConcurrentHashMap<>();

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

  McpSessions(long idleNanos) {
    this.idleNanos = idleNanos;
  }

  /** Begins a session of {@code principal} over {@code connection}; returns its id. */
  String begin(Optional<String> principal, McpConnection connection) {
    String id = UUID.randomUUID().toString();
    expireIdle();
    sessions.put(id, new Session(principal, connection));
    return id;
  }

  /** The connection of the live session of that id whose principal is the caller's; else null. */
  McpConnection find(String id, Caller caller) {
    Session session = session(id, caller);
    return session == null ? null : session.connection;
  }

  /** Ends the caller's session of that id; false when the caller has none of that id. */
  boolean end(String id, Caller caller) {
    Session known = session(id, caller);
    if (known != null && sessions.remove(id, known)) {
      known.connection.close();
    }
    return known != null;
  }

  /** How many resource subscriptions the sessions hold. */
  int openSubscriptions() {
    int open = 0;
    for (Session session : sessions.values()) {
      McpSubscriptions legacy = session.connection.legacySubscriptionsIfAny();
      open += legacy == null ? 0 : legacy.open();
    }
    return open;
  }

  void closeAll() {
    sessions.values().forEach(s -> s.connection.close());
    sessions.clear();
  }

  /** The live session of that id whose principal is the caller's, touched; null otherwise. */
  private Session session(String id, Caller caller) {
    Session session = id == null ? null : sessions.get(id);
    if (session == null) {
      return null;
    }
    long now = System.nanoTime();
    if (now - session.usedNanos > idleNanos) {
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
              boolean idle = now - e.getValue().usedNanos > idleNanos;
              if (idle) {
                e.getValue().connection.close();
              }
              return idle;
            });
  }
}
