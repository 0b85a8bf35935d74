package dev.sgm.embedding.bge;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderContext;
import dev.sgm.api.spi.EmbedderProvider;
import java.util.Set;

/**
 * Provides the {@code bge-small-en} embedder: bge-small-en-v1.5, quantised (384 dimensions), run in
 * process from the model inside its jar, with no network and no key. Settings are read under {@code
 * bge-small-en.} (see {@link BgeSettings}).
 */
public final class BgeEmbedderProvider implements EmbedderProvider {
  static final String NAME = "bge-small-en";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<String> configKeys() {
    return Set.of(
        BgeSettings.PREFIX + "workers",
        BgeSettings.PREFIX + "intra-op-threads",
        BgeSettings.PREFIX + "batch-size",
        BgeSettings.PREFIX + "max-chars");
  }

  @Override
  public Embedder create(Config config, EmbedderContext context) {
    return new LoadingEmbedder(BgeSettings.from(config));
  }
}
