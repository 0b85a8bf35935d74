package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * One data directory shared by every process of its user on the machine. The first process to open
 * it takes an OS lock on {@value LocalChannel#LOCK_FILE}, opens the embedded store and serves it to
 * the others over the directory's {@link LocalChannel}; the others send it their operations, so
 * every process sees every other's writes as soon as they are acknowledged.
 *
 * <p>The OS releases the lock when its holder exits, however it exits (SIGKILL included). When a
 * client's channel breaks, it races for the lock: the winner opens the store and serves it, the
 * rest connect to the winner. A call that never reached the holder is sent again; one whose answer
 * was lost is sent again when that cannot change its effect (reads, stores without a condition,
 * {@code put_content}), and otherwise fails with {@code unavailable}, safe to retry.
 *
 * <p>An in-memory store, or a storage other than the embedded file store, is not shared: it is
 * opened in this process as before.
 */
final class SharedDirectory implements SgmClient, AutoCloseable {
  /** For the calls whose progress no one follows. */
  static final SgmRuntime.Progress NO_PROGRESS = (done, total) -> {};

  /** The most times one call is sent again through hand-overs before it fails. */
  private static final int MAX_SENDS = 5;

  private final Config config;
  private final long timeoutNanos;
  private final String origin;
  private final Path directory;
  private final Path socket;
  private final Object turn = new Object();
  private final DeclaredEffects effects = new DeclaredEffects();
  private volatile State state;

  private List<Transport> transports = List.of();
  private Thread shutdownHook;
  private boolean closed;

  /** Where this process's calls go: to the store it holds, or to the process that holds it. */
  sealed interface State permits DirectoryHolding, HolderClient {}

  private SharedDirectory(Config config, String origin, Path directory, Path socket) {
    this.config = config;
    long timeoutMs = config.getLong(LocalChannel.TIMEOUT_KEY, LocalChannel.DEFAULT_TIMEOUT_MS);
    if (timeoutMs < LocalChannel.MIN_TIMEOUT_MS) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "configuration "
              + LocalChannel.TIMEOUT_KEY
              + ": "
              + timeoutMs
              + " is less than "
              + LocalChannel.MIN_TIMEOUT_MS);
    }
    this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    this.origin = origin;
    this.directory = directory;
    this.socket = socket;
  }

  /**
   * Opens the data directory of {@code config}: holds it if no other process does, else becomes a
   * client of the process that does. {@code origin} is the transport of calls made through {@link
   * #call}.
   */
  static SharedDirectory open(Config config, String origin) {
    // A directory another process holds is shared, and reached without loading a plugin; one
    // this process would open is shared if its storage is kept by one process at a time.
    if (config.getBoolean(ConfigLoader.STORAGE_MEMORY, false)
        || (!DirectoryHolding.heldElsewhere(Path.of(config.get(ConfigLoader.DATA_DIR, ".")))
            && !SgmRuntime.storageIsOneProcessAtATime(config))) {
      SharedDirectory unshared = new SharedDirectory(config, origin, null, null);
      unshared.state = DirectoryHolding.unshared(Sgm.openRuntime(config));
      return unshared;
    }
    Path directory;
    Path socket;
    try {
      directory = realDirectory(config);
      socket = LocalChannel.socketPath(directory);
    } catch (IOException e) {
      throw new SgmException(
          ErrorCode.UNAVAILABLE,
          "the data directory "
              + config.get(ConfigLoader.DATA_DIR, ".")
              + " cannot be used: "
              + e.getMessage());
    }
    SharedDirectory shared = new SharedDirectory(config, origin, directory, socket);
    shared.state = DirectoryHolding.holdOrConnect(config, directory, socket, shared.timeoutNanos);
    if (shared.state instanceof DirectoryHolding) {
      shared.registerShutdownHook();
    }
    return shared;
  }

  /** The data directory of {@code config}, made if it does not exist yet. */
  private static Path realDirectory(Config config) throws IOException {
    Path directory = Path.of(config.get(ConfigLoader.DATA_DIR, ".")).toAbsolutePath().normalize();
    if (!Files.exists(directory)) {
      // A data directory made here is the user's alone; one that exists keeps its mode (it may
      // be a folder of other things), and the socket's own directory keeps others out anyway.
      Files.createDirectories(directory.getParent());
      try {
        Files.createDirectory(
            directory,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      } catch (UnsupportedOperationException e) {
        Files.createDirectories(directory);
      } catch (FileAlreadyExistsException e) {
        // Another process made it first.
      }
    }
    return directory.toRealPath();
  }

  /** Runs {@code operation} as this process's origin. */
  @Override
  public JsonNode call(String operation, JsonNode request) {
    return call(origin, operation, request);
  }

  /** Runs {@code operation} for a caller of {@code callerOrigin}, wherever the store is held. */
  JsonNode call(String callerOrigin, String operation, JsonNode request) {
    return call(callerOrigin, operation, request, NO_PROGRESS);
  }

  /**
   * Rebuilds the search index wherever the store is held: in this process, or in the holder, which
   * reports its progress; returns how many records were indexed.
   */
  long reindex(SgmRuntime.Progress progress) {
    return call(origin, LocalChannel.REINDEX, Json.object(), progress).path("records").asLong();
  }

  private JsonNode call(
      String callerOrigin, String operation, JsonNode request, SgmRuntime.Progress progress) {
    for (int sends = 1; ; sends++) {
      State current = state;
      if (current instanceof DirectoryHolding holding) {
        return local(
            holding.runtime(), Caller.anonymous(callerOrigin), operation, request, progress);
      }
      HolderClient client = (HolderClient) current;
      Boolean resendable = null;
      try {
        resendable = effects.of(client, origin, operation).sameEffectIfSentAgain(request);
        return client.call(callerOrigin, operation, request, resendable, progress);
      } catch (HolderClient.NotSent e) {
        handOver(client);
      } catch (HolderClient.Lost e) {
        handOver(client);
        if (resendable != null && !resendable) {
          throw new SgmException(
              ErrorCode.UNAVAILABLE,
              "the process holding "
                  + directory
                  + " stopped during "
                  + operation
                  + ", which may or may not have taken effect; another process holds the store"
                  + " now, and the call can be sent again");
        }
      }
      if (sends >= MAX_SENDS) {
        throw new SgmException(
            ErrorCode.UNAVAILABLE,
            "the holder of " + directory + " kept going away; " + operation + " was not run");
      }
    }
  }

  private static JsonNode local(
      SgmRuntime runtime,
      Caller caller,
      String operation,
      JsonNode request,
      SgmRuntime.Progress progress) {
    SgmService service = runtime.service();
    return switch (operation) {
      case LocalChannel.OPERATIONS -> {
        var names = Json.array();
        service.operations().forEach(names::add);
        yield names;
      }
      case LocalChannel.REINDEX -> DirectoryHolder.reindex(runtime, progress);
      default -> service.invoke(caller, operation, request);
    };
  }

  /**
   * Whether {@code request} to {@code operation} would be sent again after its answer was lost, as
   * the operation's declared effects decide.
   */
  boolean sameEffectIfSentAgain(String operation, JsonNode request) {
    State current = state;
    if (current instanceof DirectoryHolding holding) {
      return DeclaredEffects.sameEffectIfSentAgain(
          holding.runtime().discovery(), operation, request);
    }
    try {
      return effects.of((HolderClient) current, origin, operation).sameEffectIfSentAgain(request);
    } catch (HolderClient.NotSent | HolderClient.Lost e) {
      return false;
    }
  }

  /** After {@code broken} failed: the next holder, which may be this process. */
  private void handOver(HolderClient broken) {
    synchronized (turn) {
      if (state != broken || closed) {
        return; // another call of this process already found the next holder
      }
      broken.close();
      State next = DirectoryHolding.holdOrConnect(config, directory, socket, timeoutNanos);
      state = next;
      if (next instanceof DirectoryHolding) {
        registerShutdownHook();
      }
    }
  }

  /**
   * A live watch when this process holds the store; empty when another process does, and the caller
   * follows {@code changes} instead.
   */
  @Override
  public Optional<ChangeStream> watch(ChangesRequest request) {
    return state instanceof DirectoryHolding holding
        ? Optional.of(holding.runtime().service().watch(Caller.anonymous(origin), request))
        : Optional.empty();
  }

  /** The operations the holder offers: the core ones, then its profiles'. */
  List<String> operations() {
    List<String> names = new ArrayList<>();
    call(LocalChannel.OPERATIONS, Json.object()).forEach(name -> names.add(name.asText()));
    return names;
  }

  /** Whether this process holds the directory for the others. */
  boolean holds() {
    return state instanceof DirectoryHolding holding && holding.holder() != null;
  }

  /** The engine's own service while this process holds the store; null while another does. */
  SgmService heldService() {
    return state instanceof DirectoryHolding holding ? holding.runtime().service() : null;
  }

  /** The data directory, null when it is not shared. */
  Path directory() {
    return directory;
  }

  /** Where the data lives, for people to read; says so when another process holds it. */
  String storageDescription() {
    State current = state;
    if (current instanceof DirectoryHolding holding) {
      return holding.runtime().storageDescription();
    }
    return call(LocalChannel.DESCRIBE, Json.object()).path("storage").asText()
        + " (held by another process, reached through "
        + socket
        + ")";
  }

  /** The discovery document of the engine that runs this directory's operations. */
  DiscoveryDocument discovery() {
    State current = state;
    if (current instanceof DirectoryHolding holding) {
      return holding.runtime().discovery();
    }
    return DiscoveryJson.read(call(Operations.DISCOVER, Json.object()));
  }

  /**
   * Starts every enabled transport. On a directory this process holds they run on its engine as
   * {@code SgmRuntime} runs them; otherwise over {@link #service()}, which follows the store to
   * whichever process holds it, this one included after a hand-over.
   */
  synchronized List<Transport> startTransports() throws Exception {
    if (state instanceof DirectoryHolding holding) {
      return holding.runtime().startTransports();
    }
    SgmService service = service();
    transports = SgmRuntime.startTransports(config, () -> service);
    return transports;
  }

  /** The operations as a service for transports: wherever the store is held. */
  SgmService service() {
    return new FollowingService(this);
  }

  /**
   * A holder that is stopped (SIGTERM, Ctrl-C) still lets the others' calls in flight finish and
   * tells them to go elsewhere, so that a hand-over after a normal exit loses no answer.
   */
  private void registerShutdownHook() {
    if (shutdownHook == null && directory != null) {
      shutdownHook = new Thread(this::close, "sgm-holder-shutdown");
      try {
        Runtime.getRuntime().addShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // Already shutting down.
      }
    }
  }

  /** Stops the transports, then stops holding (or leaves the holder); the lock goes last. */
  @Override
  public void close() {
    synchronized (turn) {
      if (closed) {
        return;
      }
      closed = true;
      synchronized (this) {
        for (int i = transports.size() - 1; i >= 0; i--) {
          transports.get(i).close();
        }
      }
      State current = state;
      if (current instanceof HolderClient client) {
        client.close();
      } else if (current instanceof DirectoryHolding holding) {
        holding.close();
      }
      if (shutdownHook != null && Thread.currentThread() != shutdownHook) {
        try {
          Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
          // The JVM is shutting down and runs it anyway; closing twice does nothing.
        }
      }
    }
  }
}
