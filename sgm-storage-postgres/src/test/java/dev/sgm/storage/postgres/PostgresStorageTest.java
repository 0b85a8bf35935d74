package dev.sgm.storage.postgres;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import dev.sgm.tck.StorageTck;
import java.nio.file.Path;

/** The storage conformance suite against PostgreSQL, a new database for each test. */
class PostgresStorageTest extends StorageTck {
  private String url;

  static Storage open(String url) {
    return new PostgresStorageProvider()
        .create(Config.of(PostgresCluster.nodeConfig(url)), StorageContext.of(Path.of("."), false));
  }

  @Override
  protected Storage createEmpty() {
    url = PostgresCluster.get().newDatabase();
    return open(url);
  }

  @Override
  protected Storage reopen() {
    return open(url);
  }
}
