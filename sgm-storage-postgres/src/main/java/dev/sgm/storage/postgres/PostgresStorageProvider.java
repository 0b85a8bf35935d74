package dev.sgm.storage.postgres;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import dev.sgm.api.spi.StorageProvider;
import dev.sgm.storage.sql.SqlStorage;
import java.util.Set;

/**
 * Provides the PostgreSQL store ({@code storage=postgres}): the server at {@code
 * storage.postgres.url} as {@code storage.postgres.user} with {@code storage.postgres.password},
 * through a pool of {@code storage.postgres.pool-size} connections (16). Any number of nodes can
 * share one database. The schema is migrated by Flyway at start-up.
 */
public final class PostgresStorageProvider implements StorageProvider {
  @Override
  public String name() {
    return "postgres";
  }

  @Override
  public int order() {
    return 200;
  }

  @Override
  public Set<String> configKeys() {
    return Set.of(
        PostgresSettings.URL,
        PostgresSettings.USER,
        PostgresSettings.PASSWORD,
        PostgresSettings.POOL_SIZE,
        PostgresSettings.CONNECT_TIMEOUT);
  }

  @Override
  public Storage create(Config config, StorageContext context) {
    if (context.inMemory()) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "storage postgres keeps its data in the database; it cannot run with storage.memory"
              + " (--memory): use storage=h2 for a throw-away run");
    }
    PostgresSettings settings = PostgresSettings.from(config);
    settings.check();
    return new SqlStorage(new PostgresDialect(settings), PostgresDialect.COMMIT_GROUPS);
  }
}
