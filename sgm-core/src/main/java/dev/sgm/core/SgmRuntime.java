package dev.sgm.core;

import dev.sgm.api.Caller;
import dev.sgm.api.DiscoverRequest;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.SgmService;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.StorageProvider;
import dev.sgm.api.spi.Transport;
import dev.sgm.api.spi.TransportProvider;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * A running SGM engine: its operations, its discovery document, and the transports it serves. The
 * entry point for embedding SGM in a Java process, for the CLI, and for servers.
 *
 * <pre>{@code
 * try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(Map.of()))) {
 *   sgm.service().store(Caller.embedded(), StoreRequest.of(record));
 * }
 * }</pre>
 */
public final class SgmRuntime implements AutoCloseable {
  private final CoreComponent graph;
  private final Config config;
  private final List<Transport> started = new ArrayList<>();
  private boolean closed;

  private SgmRuntime(CoreComponent graph, Config config) {
    this.graph = graph;
    this.config = config;
  }

  /** Opens the engine: loads and checks plugins, opens (and migrates) storage. */
  public static SgmRuntime open(Config config) {
    return open(config, Clock.systemUTC());
  }

  /** As {@link #open(Config)}, stamping records with {@code clock}. */
  public static SgmRuntime open(Config config, Clock clock) {
    return open(config, clock, HostCapabilities.NONE);
  }

  /** As {@link #open(Config, Clock)}, in a host that advertises capabilities of its own. */
  public static SgmRuntime open(Config config, Clock clock, HostCapabilities host) {
    CoreComponent graph = DaggerCoreComponent.factory().create(config, clock, host);
    graph.storage();
    graph.engine();
    graph.search().start();
    graph.feed().start();
    graph.notifier().start();
    graph.plugins().profiles().forEach(dev.sgm.api.spi.Profile::start);
    return new SgmRuntime(graph, config);
  }

  /**
   * Opens only the configured storage, which checks its settings and brings its schema up to date
   * as {@link #open} does, and closes it again ({@code sgm migrate}); returns where the data lives.
   * It fails as {@link #open} would, with the same messages.
   */
  public static String migrateStorage(Config config) {
    try (dev.sgm.api.spi.Storage storage =
        DaggerCoreComponent.factory()
            .create(config, Clock.systemUTC(), HostCapabilities.NONE)
            .storage()) {
      return storage.describe();
    }
  }

  /**
   * Whether the storage {@code config} names keeps its store in one process at a time ({@link
   * dev.sgm.api.spi.StorageProvider#oneProcessAtATime()}), so that a host shares it among its
   * processes rather than opening it in each. Found and selected as {@link #open} does.
   */
  public static boolean storageIsOneProcessAtATime(Config config) {
    return CoreModule.storageProvider(
            config, new java.util.LinkedHashSet<>(PluginLoader.load(StorageProvider.class)))
        .oneProcessAtATime();
  }

  /** The operations, for in-process callers and transports. */
  public SgmService service() {
    return graph.engine();
  }

  /** The access tokens: creating, listing, revoking; authenticating requests. */
  public AccessTokens tokens() {
    return graph.tokens();
  }

  /** The discovery document this runtime advertises. */
  public DiscoveryDocument discovery() {
    return graph.engine().discover(Caller.embedded(), DiscoverRequest.any());
  }

  /** Where the data lives, for people to read. */
  public String storageDescription() {
    return graph.storage().describe();
  }

  /** Progress of long work: how much is done of how much. */
  @FunctionalInterface
  public interface Progress {
    void report(long done, long total);
  }

  /**
   * Rebuilds the search index from storage (it is derived state: nothing stored is touched), and
   * returns once the index answers again; text queries wait meanwhile, other queries do not.
   */
  public void reindex(Progress progress) {
    graph.search().reindex(progress);
  }

  /**
   * Writes the whole memory (every scope's rows, hidden ones too, the version log, snapshots and
   * content) to {@code out} as an archive ({@link MemoryArchive}); progress counts lines written
   * (the total is unknown: -1).
   */
  public MemoryArchive.Counts exportArchive(java.io.Writer out, Progress progress)
      throws java.io.IOException {
    return new MemoryArchive(graph.storage(), new RecordIndexer(), graph.secrets())
        .export(out, progress);
  }

  /**
   * Reads a whole archive and refuses it, naming the line, field and kind, when it holds a
   * credential and {@code secrets.on-detect} is {@code reject}: run before {@link #importArchive},
   * so that such an import writes nothing. Does nothing under the other policies.
   */
  public void checkArchive(java.io.BufferedReader in) throws java.io.IOException {
    new MemoryArchive(graph.storage(), new RecordIndexer(), graph.secrets()).check(in);
  }

  /**
   * Copies an archive written by {@link #exportArchive} into this runtime's storage, which must be
   * empty: afterwards it holds the same rows, versions, snapshots and content. {@code totalLines}
   * (the archive's lines after its header) is for progress.
   */
  public MemoryArchive.Counts importArchive(
      java.io.BufferedReader in, long totalLines, Progress progress) throws java.io.IOException {
    return new MemoryArchive(graph.storage(), new RecordIndexer(), graph.secrets())
        .importInto(in, totalLines, progress);
  }

  /** Creates and starts every enabled transport; returns them in start order. */
  public synchronized List<Transport> startTransports() throws Exception {
    start(graph.plugins().transports(), config, this::service, started);
    return List.copyOf(started);
  }

  /**
   * Creates and starts every enabled transport over {@code service}, operations that this process
   * does not run itself (another process holds the store); the caller closes them. Plugins are
   * found and selected as {@link #open} does.
   */
  public static List<Transport> startTransports(Config config, Supplier<SgmService> service)
      throws Exception {
    List<Transport> transports = new ArrayList<>();
    try {
      start(
          PluginLoader.select(
              "transport", "sgm-transport-", PluginLoader.load(TransportProvider.class), config),
          config,
          service,
          transports);
    } catch (Exception | Error e) {
      for (int i = transports.size() - 1; i >= 0; i--) {
        transports.get(i).close();
      }
      throw e;
    }
    return List.copyOf(transports);
  }

  private static void start(
      List<TransportProvider> providers,
      Config config,
      Supplier<SgmService> service,
      List<Transport> started)
      throws Exception {
    for (TransportProvider provider : providers) {
      Transport transport = provider.create(config, service::get);
      transport.start();
      started.add(transport);
    }
  }

  /** Stops the transports (letting in-flight calls finish), then closes storage. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    for (int i = started.size() - 1; i >= 0; i--) {
      started.get(i).close();
    }
    started.clear();
    graph.plugins().profiles().forEach(dev.sgm.api.spi.Profile::close);
    graph.notifier().close();
    graph.feed().close();
    graph.audit().close();
    SearchFollower search = graph.search();
    search.close();
    if (search.embedder() != null) {
      search.embedder().close();
    }
    graph.storage().close();
  }
}
