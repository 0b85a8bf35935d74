package dev.sgm.api.spi;

import java.nio.file.Path;

/** What the core hands a storage provider when creating it. */
public interface StorageContext {
  /** The data directory for file-based stores (created if missing), from {@code data.dir}. */
  Path dataDirectory();
}
