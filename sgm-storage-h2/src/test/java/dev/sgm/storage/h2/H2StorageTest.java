package dev.sgm.storage.h2;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import dev.sgm.tck.storage.StorageTck;
import java.nio.file.Path;
import java.util.UUID;

/** The storage conformance suite against the embedded H2 store, on a file as the server runs it. */
class H2StorageTest extends StorageTck {
  private Path dir;

  /** A new, empty H2 store in a directory of its own under target/. */
  static Storage openIn(Path dir) {
    return new H2StorageProvider().create(Config.empty(), StorageContext.of(dir, false));
  }

  static Path newDirectory() {
    return Path.of("target", "storage-tck", UUID.randomUUID().toString());
  }

  @Override
  protected Storage createEmpty() {
    dir = newDirectory();
    return openIn(dir);
  }

  @Override
  protected Storage reopen() {
    return openIn(dir);
  }
}
