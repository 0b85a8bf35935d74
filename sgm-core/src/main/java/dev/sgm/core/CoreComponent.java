package dev.sgm.core;

import dagger.BindsInstance;
import dagger.Component;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import jakarta.inject.Singleton;
import java.time.Clock;

/** The Dagger graph of the engine: configuration and clock in, engine, plugins and storage out. */
@Singleton
@Component(modules = CoreModule.class)
interface CoreComponent {
  Engine engine();

  ActivePlugins plugins();

  Storage storage();

  AccessTokens tokens();

  SearchFollower search();

  ChangeFeed feed();

  ChangeNotifier notifier();

  AuditTrail audit();

  /** What writes, imports included, do with the credentials in them. */
  SecretPolicy secrets();

  /** Creates the graph for one runtime. */
  @Component.Factory
  interface Factory {
    CoreComponent create(
        @BindsInstance Config config,
        @BindsInstance Clock clock,
        @BindsInstance HostCapabilities host);
  }
}
