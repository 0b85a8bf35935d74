package dev.sgm.embedding.bge;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderContext;
import dev.sgm.api.spi.EmbedderProvider;
import java.util.Set;

/**
 * Provides the {@code bge-small-en} embedder: bge-small-en-v1.5, quantised (384 dimensions), run in
 * process from the model inside its jar, with no network and no key. Settings are read under {@code
 * bge-small-en.} (see {@link ModelSettings}).
 */
public final class BgeEmbedderProvider implements EmbedderProvider {
  static final String NAME = "bge-small-en";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<String> configKeys() {
    return ModelSettings.keys(NAME);
  }

  @Override
  public Embedder create(Config config, EmbedderContext context) {
    ModelSettings settings = settings(config);
    return new LoadingEmbedder(
        BgeEmbedder.MODEL,
        BgeEmbedder.DIMENSIONS,
        BgeEmbedder.CALIBRATION,
        () -> BgeEmbedder.create(settings));
  }

  /** The settings under {@code bge-small-en.}: a query on two threads by default. */
  static ModelSettings settings(Config config) {
    return ModelSettings.from(config, NAME, 2);
  }
}
