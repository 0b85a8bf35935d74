package dev.sgm.core;

import dagger.Lazy;
import dagger.Module;
import dagger.Provides;
import dagger.multibindings.ElementsIntoSet;
import dev.sgm.api.Caller;
import dev.sgm.api.DiscoveryDocument;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.ProtocolVersion;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.SgmException;
import dev.sgm.api.SgmService;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileProvider;
import dev.sgm.api.spi.RecordWriter;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import dev.sgm.api.spi.StorageProvider;
import dev.sgm.api.spi.TransportProvider;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;

/**
 * Wires the engine. Plugins enter the graph through {@link ElementsIntoSet} over {@link
 * PluginLoader}, the one place that uses {@link java.util.ServiceLoader}.
 */
@Module
final class CoreModule {
  private static final System.Logger LOG = System.getLogger(CoreModule.class.getName());

  private CoreModule() {}

  @Provides
  @ElementsIntoSet
  static Set<ProfileProvider> profileProviders() {
    return new LinkedHashSet<>(PluginLoader.load(ProfileProvider.class));
  }

  @Provides
  @ElementsIntoSet
  static Set<TransportProvider> transportProviders() {
    return new LinkedHashSet<>(PluginLoader.load(TransportProvider.class));
  }

  @Provides
  @ElementsIntoSet
  static Set<StorageProvider> storageProviders() {
    return new LinkedHashSet<>(PluginLoader.load(StorageProvider.class));
  }

  @Provides
  @ElementsIntoSet
  static Set<EmbedderProvider> embedderProviders() {
    return new LinkedHashSet<>(PluginLoader.load(EmbedderProvider.class));
  }

  /**
   * The search index's follower, with the first active embedding model (by order), if any. The
   * index lives beside the data ({@code data.dir/index}), or in memory with an in-memory store.
   */
  @Provides
  @Singleton
  static SearchFollower search(Config config, Storage storage, Set<EmbedderProvider> embedders) {
    List<EmbedderProvider> active =
        PluginLoader.select("embedder", "sgm-embedding-", embedders, config);
    Path dataDir = Path.of(config.get(ConfigLoader.DATA_DIR, "."));
    LazyEmbedder embedder = null;
    if (!active.isEmpty()) {
      embedder = new LazyEmbedder(active.get(0), config, () -> dataDir);
      LOG.log(System.Logger.Level.INFO, "embedding model from {0}", active.get(0).name());
    }
    Path indexDir =
        config.getBoolean(ConfigLoader.STORAGE_MEMORY, false) ? null : dataDir.resolve("index");
    return new SearchFollower(
        storage,
        indexDir,
        embedder,
        embedder == null ? null : embedder.providerName(),
        config.getBoolean(ConfigLoader.EMBED_IN_BACKGROUND, true));
  }

  /** The storage plugin {@code storage} names, of {@code providers}; the default unless set. */
  static StorageProvider storageProvider(Config config, Set<StorageProvider> providers) {
    return PluginLoader.selectOne(
        "storage",
        ConfigLoader.STORAGE,
        "sgm-storage-",
        providers,
        config.with(
            ConfigLoader.STORAGE, config.get(ConfigLoader.STORAGE, ConfigLoader.DEFAULT_STORAGE)));
  }

  @Provides
  @Singleton
  static Storage storage(Config config, Set<StorageProvider> providers) {
    StorageProvider chosen = storageProvider(config, providers);
    LOG.log(
        System.Logger.Level.INFO,
        "storage: {0} (available: {1})",
        chosen.name(),
        names(providers.stream().map(StorageProvider::name).sorted().toList()));
    Path dataDir = Path.of(config.get(ConfigLoader.DATA_DIR, "."));
    // The engine re-checks the scope of what any storage returns: one plugin's bug is not a leak.
    boolean inMemory = config.getBoolean(ConfigLoader.STORAGE_MEMORY, false);
    return new ScopeCheckedStorage(chosen.create(config, StorageContext.of(dataDir, inMemory)));
  }

  @Provides
  static RecordValidator validator(Config config) {
    long max = config.getLong(ConfigLoader.RECORD_MAX_BYTES, 1024 * 1024);
    if (max < 1024) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "configuration " + ConfigLoader.RECORD_MAX_BYTES + ": must be at least 1024");
    }
    return new RecordValidator(max);
  }

  @Provides
  @Singleton
  static ActivePlugins plugins(
      Config config,
      Set<ProfileProvider> profiles,
      Set<TransportProvider> transports,
      Clock clock,
      Lazy<Engine> engine,
      Lazy<ChangeNotifier> notifier,
      Lazy<Storage> storage) {
    List<ProfileProvider> activeProfiles =
        PluginLoader.select("profile", "sgm-profile-", profiles, config);
    List<TransportProvider> activeTransports =
        PluginLoader.select("transport", "sgm-transport-", transports, config);
    ProfileContext context =
        new ProfileContext() {
          @Override
          public SgmService service() {
            return engine.get();
          }

          @Override
          public Clock clock() {
            return clock;
          }

          @Override
          public <T> T atomically(Caller caller, Function<RecordWriter, T> work) {
            return engine.get().atomically(caller, work);
          }

          @Override
          public RetrieveResult retrieveAmong(
              Caller caller, List<MemoryRecord> candidates, RetrieveQuery query) {
            return engine.get().retrieveAmong(caller, candidates, query);
          }

          @Override
          public void onChange(java.util.function.Consumer<dev.sgm.api.ChangeEvent> listener) {
            notifier.get().onEvent(listener);
          }

          @Override
          public void forEachLive(String type, java.util.function.Consumer<MemoryRecord> action) {
            long after = 0;
            while (true) {
              List<dev.sgm.api.spi.StoredRecord> rows = storage.get().scanLive(after, 1000);
              if (rows.isEmpty()) {
                return;
              }
              for (dev.sgm.api.spi.StoredRecord row : rows) {
                after = row.rowKey();
                if (row.type().equals(type)) {
                  action.accept(MemoryRecord.ofStoredText(row.document()));
                }
              }
            }
          }
        };
    ActivePlugins plugins =
        new ActivePlugins(ActivePlugins.create(activeProfiles, config, context), activeTransports);
    LOG.log(
        System.Logger.Level.INFO,
        "loaded profiles: {0}; transports: {1}",
        names(plugins.profileNames()),
        names(plugins.transportNames()));
    return plugins;
  }

  private static String names(List<String> names) {
    return names.isEmpty() ? "none" : String.join(", ", names);
  }

  @Provides
  @Singleton
  static DiscoveryDocument discovery(
      ActivePlugins plugins,
      RecordValidator validator,
      HostCapabilities host,
      SecretPolicy secrets) {
    List<String> capabilities = new ArrayList<>();
    capabilities.add("core");
    capabilities.addAll(plugins.profileNames());
    capabilities.addAll(plugins.transportNames());
    capabilities.addAll(host.names());
    List<dev.sgm.api.OperationDescriptor> operations =
        new ArrayList<>(CoreOperations.descriptors());
    operations.addAll(plugins.operationDescriptors());
    Properties implementation = implementation();
    return new DiscoveryDocument(
        ProtocolVersion.CURRENT,
        List.of(ProtocolVersion.CURRENT),
        implementation.getProperty("name", "sgm-java"),
        implementation.getProperty("version", "unknown"),
        capabilities,
        plugins.profileFeatures(),
        List.of(new DiscoveryDocument.ReferenceKind(dev.sgm.api.ContentReference.KIND, true)),
        validator.maxRecordBytes(),
        RetrieveQuery.MAX_LIMIT,
        operations,
        plugins.recordTypes(),
        null,
        secrets.describe());
  }

  /** What writes do with the credentials found in them ({@code secrets.on-detect}). */
  @Provides
  @Singleton
  static SecretPolicy secrets(Config config, ActivePlugins plugins) {
    return SecretPolicy.of(config, new SecretScanner(plugins.secretDetectors()));
  }

  private static Properties implementation() {
    Properties properties = new Properties();
    try (InputStream in = CoreModule.class.getResourceAsStream("implementation.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      LOG.log(System.Logger.Level.WARNING, "implementation.properties cannot be read", e);
    }
    return properties;
  }

  /** The change feed, keeping its log for {@code changes.retention}. */
  @Provides
  @Singleton
  static ChangeFeed feed(Config config, Storage storage, Clock clock) {
    String retention = config.get(ConfigLoader.CHANGES_RETENTION, "7d");
    return new ChangeFeed(
        storage, clock, ChangeFeed.parseDuration(ConfigLoader.CHANGES_RETENTION, retention));
  }

  /** The shared follower of the change log behind every watch, buffering {@code watch.buffer}. */
  @Provides
  @Singleton
  static ChangeNotifier notifier(Config config, Storage storage, ChangeFeed feed) {
    int buffer = config.getInt(ConfigLoader.WATCH_BUFFER, 1000);
    if (buffer < 1) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "configuration " + ConfigLoader.WATCH_BUFFER + ": must be at least 1");
    }
    return new ChangeNotifier(storage, feed, buffer);
  }

  @Provides
  @Singleton
  static Engine engine(
      Config config,
      Storage storage,
      SearchFollower search,
      ChangeFeed feed,
      ChangeNotifier notifier,
      RecordValidator validator,
      SecretPolicy secrets,
      ActivePlugins plugins,
      Clock clock,
      DiscoveryDocument discovery,
      AccessTokens tokens,
      AuditTrail audit) {
    return new Engine(
        storage,
        config.get(ConfigLoader.STORAGE, ConfigLoader.DEFAULT_STORAGE),
        search,
        feed,
        notifier,
        validator,
        secrets,
        new RecordIndexer(),
        plugins,
        clock,
        discovery,
        tokens,
        audit);
  }

  /** Where the audit lines go ({@code audit.file}, else the {@code dev.sgm.audit} logger). */
  @Provides
  @Singleton
  static AuditTrail audit(Config config) {
    return new AuditTrail(config);
  }

  /** The access tokens, kept by the storage when it keeps them. */
  @Provides
  @Singleton
  static AccessTokens tokens(Config config, Storage storage, Clock clock) {
    return new AccessTokens(config, storage.tokens(), clock);
  }
}
