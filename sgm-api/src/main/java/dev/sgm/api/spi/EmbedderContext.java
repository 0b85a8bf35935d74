package dev.sgm.api.spi;

import java.nio.file.Path;

/** What the core hands an embedder provider when creating it. */
public interface EmbedderContext {
  /** The data directory, for a model that keeps a cache beside the data. */
  Path dataDirectory();
}
