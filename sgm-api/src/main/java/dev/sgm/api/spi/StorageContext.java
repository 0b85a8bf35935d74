package dev.sgm.api.spi;

import java.nio.file.Path;

/** What the core hands a storage provider when creating it. */
public interface StorageContext {
  /** The data directory for file-based stores (created if missing), from {@code data.dir}. */
  Path dataDirectory();

  /**
   * Whether this run keeps nothing once it ends ({@code storage.memory}, {@code --memory}): a
   * storage that can hold its data in memory does so; one that cannot refuses to start rather than
   * write somewhere durable.
   */
  boolean inMemory();

  /** A context with these values. */
  static StorageContext of(Path dataDirectory, boolean inMemory) {
    return new StorageContext() {
      @Override
      public Path dataDirectory() {
        return dataDirectory;
      }

      @Override
      public boolean inMemory() {
        return inMemory;
      }
    };
  }
}
