package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.BatchStoreResult;
import dev.sgm.api.Caller;
import dev.sgm.api.ContentReference;
import dev.sgm.api.DeleteRequest;
import dev.sgm.api.DeleteResult;
import dev.sgm.api.DiscoverRequest;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.OperationEffects;
import dev.sgm.api.Operations;
import dev.sgm.api.ProtocolVersion;
import dev.sgm.api.PutContentRequest;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.ReadResult;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.StoreResult;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.StoreInUseException;
import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
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
  /** How long to wait for a directory to have a holder that answers before giving up. */
  private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** How long a new holder waits for the store's own file lock, released with the old holder. */
  private static final long STORE_OPEN_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

  private static final SgmRuntime.Progress NO_PROGRESS = (done, total) -> {};

  /** The most times one call is sent again through hand-overs before it fails. */
  private static final int MAX_SENDS = 5;

  /**
   * The directories this JVM holds. A second holder in one JVM must not even open the lock file:
   * closing any descriptor of a file drops every POSIX lock the process has on it.
   */
  private static final Set<Path> HELD_HERE = ConcurrentHashMap.newKeySet();

  private final Config config;
  private final long timeoutNanos;
  private final String origin;
  private final Path directory;
  private final Path socket;
  private final Object turn = new Object();
  private volatile State state;

  /** The effects of the holder's operations, by name, once asked for. */
  private volatile Map<String, OperationEffects> effects = Map.of();

  private List<Transport> transports = List.of();
  private Thread shutdownHook;
  private boolean closed;

  private sealed interface State permits Holding, Client {}

  /**
   * This process runs the store; {@code holder} and {@code lock} are null when it is not shared.
   */
  private record Holding(
      SgmRuntime runtime, DirectoryHolder holder, FileChannel lockFile, FileLock lock)
      implements State {}

  /**
   * Another process runs the store; calls go to it over pooled connections. A call that hears
   * nothing from the holder for {@code timeoutNanos} (a holder at work sends an interim frame every
   * {@link LocalChannel#INTERIM_NANOS}) fails with {@code unavailable}: the holder is alive, since
   * it keeps its lock, but stopped or stuck.
   */
  private static final class Client implements State {
    private final Path directory;
    private final Path socket;
    private final long timeoutNanos;
    private final ConcurrentLinkedDeque<LocalChannel.Framed> idle = new ConcurrentLinkedDeque<>();
    private volatile boolean closed;

    private Client(Path directory, Path socket, long timeoutNanos) {
      this.directory = directory;
      this.socket = socket;
      this.timeoutNanos = timeoutNanos;
    }

    /**
     * A client of the holder on {@code socket}, once a first connection to it is made; a holder too
     * stopped to take connections makes this {@code unavailable}.
     */
    static Client connect(Path directory, Path socket, long timeoutNanos) throws IOException {
      Client client = new Client(directory, socket, timeoutNanos);
      client.idle.add(client.newChannel("connect"));
      return client;
    }

    private LocalChannel.Framed newChannel(String operation) throws IOException {
      try {
        return LocalChannel.connect(socket, timeoutNanos);
      } catch (LocalChannel.Silent e) {
        throw stopped(operation, "was not sent");
      }
    }

    JsonNode call(
        String origin,
        String operation,
        JsonNode request,
        boolean resendable,
        SgmRuntime.Progress progress)
        throws NotSent, Lost {
      LocalChannel.Framed channel = idle.pollFirst();
      if (channel == null) {
        try {
          channel = newChannel(operation);
        } catch (IOException e) {
          throw new NotSent();
        }
      }
      ObjectNode message = Json.object();
      message.put("op", operation);
      message.put("origin", origin);
      message.set("request", request);
      JsonNode response;
      try {
        channel.write(message);
      } catch (IOException e) {
        quietly(channel);
        if (e instanceof LocalChannel.Silent) {
          throw stopped(operation, sentAgain(resendable));
        }
        throw new NotSent(); // an incomplete frame is never run
      }
      while (true) {
        try {
          response = channel.read();
        } catch (IOException e) {
          quietly(channel);
          if (e instanceof LocalChannel.Silent) {
            throw stopped(operation, sentAgain(resendable));
          }
          throw new Lost();
        }
        if (response == null) {
          quietly(channel);
          throw new Lost();
        }
        JsonNode done = response.get("progress");
        if (done != null) {
          progress.report(done.path("done").asLong(), done.path("total").asLong());
        } else if (!response.has("working")) {
          break;
        }
      }
      if (response.path("closing").asBoolean(false)) {
        quietly(channel);
        throw new NotSent();
      }
      if (closed) {
        quietly(channel);
      } else {
        idle.offerFirst(channel);
      }
      if (response.has("error")) {
        throw SgmException.fromJson(response);
      }
      return response.get("result");
    }

    private static String sentAgain(boolean resendable) {
      return resendable
          ? "may or may not have taken effect, and sending it again is safe"
          : "may or may not have taken effect";
    }

    private SgmException stopped(String operation, String outcome) {
      return new SgmException(
          ErrorCode.UNAVAILABLE,
          "the process holding "
              + directory
              + " has not answered for "
              + TimeUnit.NANOSECONDS.toMillis(timeoutNanos)
              + " ms ("
              + LocalChannel.TIMEOUT_KEY
              + "): it is running but stopped or stuck; "
              + operation
              + " "
              + outcome);
    }

    void close() {
      closed = true;
      for (LocalChannel.Framed channel = idle.poll(); channel != null; channel = idle.poll()) {
        quietly(channel);
      }
    }
  }

  /** The request never reached a holder that would run it. */
  private static final class NotSent extends Exception {
    NotSent() {
      super(null, null, false, false);
    }
  }

  /** The request reached the holder, which went away before it answered. */
  private static final class Lost extends Exception {
    Lost() {
      super(null, null, false, false);
    }
  }

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
    if (config.getBoolean(ConfigLoader.STORAGE_MEMORY, false)
        || !SgmRuntime.storageIsOneProcessAtATime(config)) {
      SharedDirectory unshared = new SharedDirectory(config, origin, null, null);
      unshared.state = new Holding(Sgm.openRuntime(config), null, null, null);
      return unshared;
    }
    Path directory;
    Path socket;
    try {
      directory = Path.of(config.get(ConfigLoader.DATA_DIR, ".")).toAbsolutePath().normalize();
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
        } catch (java.nio.file.FileAlreadyExistsException e) {
          // Another process made it first.
        }
      }
      directory = directory.toRealPath();
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
    shared.state = shared.settle();
    if (shared.state instanceof Holding) {
      shared.registerShutdownHook();
    }
    return shared;
  }

  /** Holds the directory, or connects to its holder, waiting for one to answer. */
  private State settle() {
    long deadline = System.nanoTime() + SETTLE_NANOS;
    long pause = 2;
    while (true) {
      Holding held = tryHold();
      if (held != null) {
        return held;
      }
      try {
        return Client.connect(directory, socket, timeoutNanos);
      } catch (IOException e) {
        // The holder is starting, or has just died (or is stopped): try again.
      }
      if (System.nanoTime() > deadline) {
        throw new SgmException(
            ErrorCode.UNAVAILABLE,
            "the data directory "
                + directory
                + " is in use by another process, which does not answer on "
                + socket);
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while opening " + directory);
      }
      pause = Math.min(pause * 2, 50);
    }
  }

  /** Takes the lock and opens and serves the store; null when another process holds it. */
  private Holding tryHold() {
    synchronized (HELD_HERE) {
      if (HELD_HERE.contains(directory)) {
        return null;
      }
      FileChannel lockFile = null;
      FileLock lock = null;
      try {
        Path path = directory.resolve(LocalChannel.LOCK_FILE);
        lockFile = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        LocalChannel.ownerOnly(path);
        try {
          lock = lockFile.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null;
        }
        if (lock == null) {
          lockFile.close();
          return null;
        }
        HELD_HERE.add(directory);
        SgmRuntime runtime = openStore();
        try {
          Holding holding =
              new Holding(runtime, DirectoryHolder.start(runtime, socket), lockFile, lock);
          return holding;
        } catch (IOException | RuntimeException e) {
          runtime.close();
          throw e;
        }
      } catch (IOException | RuntimeException e) {
        if (lock != null) {
          HELD_HERE.remove(directory);
        }
        quietly(lockFile);
        if (e instanceof SgmException sgm) {
          throw sgm;
        }
        throw new SgmException(
            ErrorCode.UNAVAILABLE,
            "the data directory " + directory + " cannot be served: " + e.getMessage());
      }
    }
  }

  /**
   * Opens the store, waiting a moment while the previous holder's file lock on it is still being
   * released by the OS (the two locks are dropped one after the other when a process dies).
   */
  private SgmRuntime openStore() {
    long deadline = System.nanoTime() + STORE_OPEN_NANOS;
    while (true) {
      try {
        return Sgm.openRuntime(config);
      } catch (StoreInUseException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while opening " + directory);
      }
    }
  }

  /** Runs {@code operation} as this process's origin. */
  @Override
  public JsonNode call(String operation, JsonNode request) {
    return call(origin, operation, request);
  }

  private JsonNode call(String callerOrigin, String operation, JsonNode request) {
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
      if (current instanceof Holding holding) {
        return local(
            holding.runtime(), Caller.anonymous(callerOrigin), operation, request, progress);
      }
      Client client = (Client) current;
      Boolean resendable = null;
      try {
        resendable = effects(client, operation).sameEffectIfSentAgain(request);
        return client.call(callerOrigin, operation, request, resendable, progress);
      } catch (NotSent e) {
        handOver(client);
      } catch (Lost e) {
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
   * What {@code operation} does, as the holder's declarations say (asked once, before the first
   * call that needs it, while the holder answers): whether a call whose answer was lost may be sent
   * again. The channel's own operations only read.
   */
  private OperationEffects effects(Client client, String operation) throws NotSent, Lost {
    if (operation.startsWith(LocalChannel.CHANNEL_PREFIX)) {
      return OperationEffects.READ;
    }
    Map<String, OperationEffects> known = effects;
    if (!known.containsKey(operation)) {
      Map<String, OperationEffects> fetched = new java.util.HashMap<>();
      client
          .call(origin, LocalChannel.EFFECTS, Json.object(), true, NO_PROGRESS)
          .properties()
          .forEach(e -> fetched.put(e.getKey(), OperationEffects.fromJson(e.getValue())));
      effects = known = Map.copyOf(fetched);
    }
    return known.getOrDefault(operation, OperationEffects.WRITE);
  }

  /**
   * Whether {@code request} to {@code operation} would be sent again after its answer was lost, as
   * the operation's declared effects decide.
   */
  boolean sameEffectIfSentAgain(String operation, JsonNode request) {
    State current = state;
    if (current instanceof Holding holding) {
      return operation.startsWith(LocalChannel.CHANNEL_PREFIX)
          || holding.runtime().discovery().operations().stream()
              .filter(op -> op.name().equals(operation))
              .anyMatch(op -> op.effects().sameEffectIfSentAgain(request));
    }
    try {
      return effects((Client) current, operation).sameEffectIfSentAgain(request);
    } catch (NotSent | Lost e) {
      return false;
    }
  }

  /** After {@code broken} failed: the next holder, which may be this process. */
  private void handOver(Client broken) {
    synchronized (turn) {
      if (state != broken || closed) {
        return; // another call of this process already found the next holder
      }
      broken.close();
      State next = settle();
      state = next;
      if (next instanceof Holding) {
        registerShutdownHook();
      }
    }
  }

  /**
   * A live watch when this process holds the store; empty when another process does, and the caller
   * follows {@code changes} instead.
   */
  @Override
  public Optional<dev.sgm.api.ChangeStream> watch(dev.sgm.api.ChangesRequest request) {
    return state instanceof Holding holding
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
    return state instanceof Holding holding && holding.holder() != null;
  }

  /** Where the data lives, for people to read; says so when another process holds it. */
  String storageDescription() {
    State current = state;
    if (current instanceof Holding holding) {
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
    if (current instanceof Holding holding) {
      return holding.runtime().discovery();
    }
    return discoveryOf(call(Operations.DISCOVER, Json.object()));
  }

  /**
   * Starts every enabled transport. On a directory this process holds they run on its engine as
   * {@code SgmRuntime} runs them; otherwise over {@link #service()}, which follows the store to
   * whichever process holds it, this one included after a hand-over.
   */
  synchronized List<Transport> startTransports() throws Exception {
    if (state instanceof Holding holding) {
      return holding.runtime().startTransports();
    }
    SgmService service = service();
    transports = SgmRuntime.startTransports(config, () -> service);
    return transports;
  }

  /**
   * The operations as a service for transports: wherever the store is held. Away from the holder,
   * transports reach operations by wire name ({@link SgmService#invoke}), {@code discover}, {@code
   * operations} and {@code getContent}, as every transport does; the typed methods answer {@code
   * unsupported_capability} there.
   */
  SgmService service() {
    return new SgmService() {
      private SgmService local() {
        return state instanceof Holding holding ? holding.runtime().service() : null;
      }

      private <T> T away(String operation) {
        throw new SgmException(
            ErrorCode.UNSUPPORTED_CAPABILITY,
            operation
                + " is reached by its wire name (invoke) while another process holds "
                + directory);
      }

      @Override
      public DiscoveryDocument discover(Caller caller, DiscoverRequest request) {
        SgmService local = local();
        return local != null
            ? local.discover(caller, request)
            : discoveryOf(call(caller.origin(), Operations.DISCOVER, request.toJson()));
      }

      @Override
      public StoreResult store(Caller caller, StoreRequest request) {
        SgmService local = local();
        return local != null ? local.store(caller, request) : away(Operations.STORE);
      }

      @Override
      public BatchStoreResult storeBatch(Caller caller, BatchStoreRequest request) {
        SgmService local = local();
        return local != null ? local.storeBatch(caller, request) : away(Operations.STORE_BATCH);
      }

      @Override
      public ReadResult read(Caller caller, ReadRequest request) {
        SgmService local = local();
        return local != null ? local.read(caller, request) : away(Operations.READ);
      }

      @Override
      public RetrieveResult retrieve(Caller caller, RetrieveQuery query) {
        SgmService local = local();
        return local != null ? local.retrieve(caller, query) : away(Operations.RETRIEVE);
      }

      @Override
      public DeleteResult delete(Caller caller, DeleteRequest request) {
        SgmService local = local();
        return local != null ? local.delete(caller, request) : away(Operations.DELETE);
      }

      @Override
      public ContentReference putContent(Caller caller, PutContentRequest request) {
        SgmService local = local();
        return local != null ? local.putContent(caller, request) : away(Operations.PUT_CONTENT);
      }

      @Override
      public Optional<StoredContent> getContent(Caller caller, String hash) {
        SgmService local = local();
        if (local != null) {
          return local.getContent(caller, hash);
        }
        ObjectNode request = Json.object().put("hash", hash);
        JsonNode found = call(caller.origin(), LocalChannel.CONTENT, request);
        if (found == null || found.isNull()) {
          return Optional.empty();
        }
        return Optional.of(
            new StoredContent(
                new ContentReference(
                    found.path("hash").asText(),
                    found.path("encoding").asText(),
                    found.path("bytes").asLong()),
                Base64.getDecoder().decode(found.path("base64").asText())));
      }

      @Override
      public JsonNode invoke(Caller caller, String operation, JsonNode request) {
        return call(caller.origin(), operation, request);
      }

      @Override
      public List<String> operations() {
        return SharedDirectory.this.operations();
      }
    };
  }

  /** A discovery document read back from its JSON. */
  static DiscoveryDocument discoveryOf(JsonNode json) {
    List<ProtocolVersion> supported = new ArrayList<>();
    json.path("supported_versions").forEach(v -> supported.add(ProtocolVersion.parse(v.asText())));
    List<String> capabilities = new ArrayList<>();
    json.path("capabilities").forEach(c -> capabilities.add(c.asText()));
    Map<String, List<String>> profiles = new LinkedHashMap<>();
    json.path("profiles")
        .properties()
        .forEach(
            profile -> {
              List<String> features = new ArrayList<>();
              profile.getValue().path("features").forEach(f -> features.add(f.asText()));
              profiles.put(profile.getKey(), features);
            });
    boolean resolvable = json.path("references").path("resolvable").asBoolean(false);
    List<DiscoveryDocument.ReferenceKind> kinds = new ArrayList<>();
    json.path("references")
        .path("kinds")
        .forEach(k -> kinds.add(new DiscoveryDocument.ReferenceKind(k.asText(), resolvable)));
    return new DiscoveryDocument(
        ProtocolVersion.parse(json.path("protocol_version").asText()),
        supported,
        json.path("implementation").asText(),
        json.path("implementation_version").asText(),
        capabilities,
        profiles,
        kinds,
        json.path("limits").path("max_record_bytes").asLong(),
        json.path("limits").path("max_page_size").asInt(),
        dev.sgm.api.OperationDescriptor.listedIn(json),
        recordTypesOf(json),
        json.path("retrieval").isObject() ? (ObjectNode) json.get("retrieval") : null);
  }

  private static Map<String, DiscoveryDocument.OwnedType> recordTypesOf(JsonNode json) {
    Map<String, DiscoveryDocument.OwnedType> types = new LinkedHashMap<>();
    json.path("record_types")
        .properties()
        .forEach(
            type ->
                types.put(
                    type.getKey(),
                    new DiscoveryDocument.OwnedType(
                        type.getValue().path("profile").asText(),
                        type.getValue().path("data_schema").isObject()
                            ? (ObjectNode) type.getValue().get("data_schema")
                            : Json.object())));
    return types;
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
      if (current instanceof Client client) {
        client.close();
      } else if (current instanceof Holding holding) {
        if (holding.holder() != null) {
          holding.holder().close();
        } else {
          holding.runtime().close();
        }
        if (holding.lock() != null) {
          try {
            holding.lock().release();
          } catch (IOException e) {
            // Released with the descriptor below.
          }
          quietly(holding.lockFile());
          HELD_HERE.remove(directory);
        }
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

  private static void quietly(java.io.Closeable closeable) {
    if (closeable == null) {
      return;
    }
    try {
      closeable.close();
    } catch (IOException e) {
      // Closing after a failure: nothing more to do.
    }
  }
}
