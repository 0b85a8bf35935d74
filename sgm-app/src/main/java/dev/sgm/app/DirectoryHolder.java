package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoredContent;
import dev.sgm.core.SgmRuntime;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The serving side of a held data directory: the engine of this process, offered to the other
 * processes on the machine over the directory's {@link LocalChannel}, each connection on its own
 * thread. A call that runs longer than {@link LocalChannel#INTERIM_NANOS} gets an interim frame
 * (its progress, or a keep-alive) that often, from one thread for all connections, so that a client
 * can tell a long call from a holder that stopped answering. Closing lets calls in flight finish
 * and tells idle connections that it is going, so that their next call goes to the next holder, not
 * into the void.
 */
final class DirectoryHolder implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(DirectoryHolder.class.getName());
  private static final ObjectNode CLOSING = Json.object().put("closing", true);
  private static final ObjectNode WORKING = Json.object().put("working", true);
  private static final long DRAIN_NANOS = TimeUnit.SECONDS.toNanos(10);

  private final SgmRuntime runtime;
  private final Path socket;
  private final ServerSocketChannel server;
  private final Set<Connection> connections = ConcurrentHashMap.newKeySet();
  private final Thread acceptor;
  private final Thread interim;
  private volatile boolean closing;

  /**
   * One client's connection; {@code busy} while a request of it runs. Frames are written under
   * {@code lock}, which the interim thread only tries: a client that stops reading must not hold it
   * up for the others.
   */
  private static final class Connection {
    final LocalChannel.Framed channel;
    final ReentrantLock lock = new ReentrantLock();
    volatile boolean busy;

    /** When the client was last sent a frame for the running call. */
    volatile long lastFrame;

    /** The running call's latest progress ({done, total}), null if it reports none. */
    volatile long[] progress;

    Connection(LocalChannel.Framed channel) {
      this.channel = channel;
    }
  }

  private DirectoryHolder(SgmRuntime runtime, Path socket, ServerSocketChannel server) {
    this.runtime = runtime;
    this.socket = socket;
    this.server = server;
    this.acceptor = Thread.ofPlatform().daemon().name("sgm-holder").unstarted(this::accept);
    this.interim =
        Thread.ofPlatform().daemon().name("sgm-holder-interim").unstarted(this::sendInterims);
  }

  /** Serves {@code runtime} on {@code socket}, replacing the socket file of a holder that died. */
  static DirectoryHolder start(SgmRuntime runtime, Path socket) throws IOException {
    Files.deleteIfExists(socket);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    try {
      server.bind(UnixDomainSocketAddress.of(socket));
      LocalChannel.ownerOnly(socket);
    } catch (IOException e) {
      server.close();
      throw e;
    }
    DirectoryHolder holder = new DirectoryHolder(runtime, socket, server);
    holder.acceptor.start();
    holder.interim.start();
    return holder;
  }

  SgmRuntime runtime() {
    return runtime;
  }

  private void accept() {
    while (!closing) {
      SocketChannel channel;
      try {
        channel = server.accept();
      } catch (IOException e) {
        if (!closing) {
          LOG.log(System.Logger.Level.WARNING, "the local channel stopped accepting", e);
        }
        return;
      }
      Connection connection = new Connection(new LocalChannel.Framed(channel));
      connections.add(connection);
      // A platform thread per connection: a blocked read wakes straight up, without the hop
      // through the poller that a virtual thread takes, which is most of a fast read's cost.
      Thread.ofPlatform().daemon().name("sgm-holder-connection").start(() -> serve(connection));
    }
  }

  private void serve(Connection connection) {
    LocalChannel.Framed channel = connection.channel;
    try (channel) {
      while (true) {
        JsonNode message = channel.read();
        if (message == null) {
          return;
        }
        connection.lock.lock();
        try {
          if (closing) {
            channel.write(CLOSING); // not run: the client sends it again elsewhere
            return;
          }
          connection.progress = null;
          connection.lastFrame = System.nanoTime();
          connection.busy = true;
        } finally {
          connection.lock.unlock();
        }
        JsonNode response = answer(message, connection);
        connection.lock.lock();
        try {
          connection.busy = false;
          channel.write(response);
          if (closing) {
            return;
          }
        } finally {
          connection.lock.unlock();
        }
      }
    } catch (IOException e) {
      // The client went away (or this holder is closing): nothing is owed to it.
    } finally {
      connections.remove(connection);
    }
  }

  /**
   * Every {@link LocalChannel#INTERIM_NANOS}, tells each client whose call has had no frame for
   * that long that it is still running: its progress if it reports any, else a keep-alive.
   */
  private void sendInterims() {
    long period = TimeUnit.NANOSECONDS.toMillis(LocalChannel.INTERIM_NANOS) / 2;
    while (!closing) {
      try {
        Thread.sleep(period);
      } catch (InterruptedException e) {
        return;
      }
      long now = System.nanoTime();
      for (Connection connection : connections) {
        if (!connection.busy
            || now - connection.lastFrame < LocalChannel.INTERIM_NANOS
            || !connection.lock.tryLock()) {
          continue;
        }
        try {
          if (connection.busy) {
            long[] progress = connection.progress;
            connection.channel.write(progress == null ? WORKING : progressFrame(progress));
            connection.lastFrame = now;
          }
        } catch (IOException e) {
          // The client went away; its serve thread finds out when it answers.
        } finally {
          connection.lock.unlock();
        }
      }
    }
  }

  private static ObjectNode progressFrame(long[] progress) {
    ObjectNode frame = Json.object();
    frame.putObject("progress").put("done", progress[0]).put("total", progress[1]);
    return frame;
  }

  private JsonNode answer(JsonNode message, Connection connection) {
    String operation = message.path("op").asText("");
    Caller caller = Caller.anonymous(message.path("origin").asText("cli"));
    JsonNode request = message.has("request") ? message.get("request") : Json.object();
    ObjectNode response = Json.object();
    try {
      response.set(
          "result",
          switch (operation) {
            case LocalChannel.OPERATIONS -> {
              ArrayNode names = Json.array();
              runtime.service().operations().forEach(names::add);
              yield names;
            }
            case LocalChannel.EFFECTS -> {
              ObjectNode effects = Json.object();
              runtime
                  .discovery()
                  .operations()
                  .forEach(op -> effects.set(op.name(), op.effects().toJson()));
              yield effects;
            }
            case LocalChannel.DESCRIBE ->
                Json.object().put("storage", runtime.storageDescription());
            case LocalChannel.CONTENT -> content(caller, request.path("hash").asText(""));
            case LocalChannel.REINDEX ->
                reindex(
                    runtime,
                    (done, total) -> {
                      connection.progress = new long[] {done, total};
                    });
            default -> runtime.service().invoke(caller, operation, request);
          });
      return response;
    } catch (SgmException e) {
      return e.toJson();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.ERROR, "a call over the local channel failed", e);
      return new SgmException(ErrorCode.INTERNAL, "the holder failed; see its log").toJson();
    }
  }

  /** Rebuilds the search index of {@code runtime}; the answer says how many records it indexed. */
  static JsonNode reindex(SgmRuntime runtime, SgmRuntime.Progress progress) {
    long[] indexed = {0};
    runtime.reindex(
        (done, total) -> {
          indexed[0] = done;
          progress.report(done, total);
        });
    return Json.object().put("records", indexed[0]);
  }

  private JsonNode content(Caller caller, String hash) {
    Optional<StoredContent> content = runtime.service().getContent(caller, hash);
    if (content.isEmpty()) {
      return Json.object().nullNode();
    }
    ObjectNode json = content.get().reference().toJson();
    json.put("base64", Base64.getEncoder().encodeToString(content.get().bytes()));
    return json;
  }

  /**
   * Stops serving: no new connections, idle ones told that this holder is going, calls in flight
   * finished (for up to 10 s); then the store closes. The lock is the caller's to release after.
   */
  @Override
  public void close() {
    closing = true;
    try {
      server.close();
      Files.deleteIfExists(socket);
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "the local channel closed uncleanly", e);
    }
    long deadline = System.nanoTime() + DRAIN_NANOS;
    while (!connections.isEmpty() && System.nanoTime() < deadline) {
      for (Connection connection : connections) {
        connection.lock.lock();
        try {
          if (!connection.busy && connection.channel.isOpen()) {
            try {
              connection.channel.write(CLOSING);
            } catch (IOException e) {
              // Gone already.
            }
            try {
              connection.channel.close();
            } catch (IOException e) {
              // Closing anyway.
            }
          }
        } finally {
          connection.lock.unlock();
        }
      }
      if (!connections.isEmpty()) {
        try {
          Thread.sleep(5);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    interim.interrupt();
    runtime.close();
  }
}
