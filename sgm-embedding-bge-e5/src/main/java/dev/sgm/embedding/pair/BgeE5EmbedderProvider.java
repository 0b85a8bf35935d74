package dev.sgm.embedding.pair;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderContext;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.embedding.bge.LoadingEmbedder;
import dev.sgm.embedding.bge.ModelSettings;
import java.util.Set;

/**
 * Provides the {@code bge-e5-small} embedder: bge-small-en-v1.5 and e5-small-v2, quantised, side by
 * side (768 dimensions), run in process from the models inside their jars, with no network and no
 * key. It comes before {@code bge-small-en} (which it needs on the module path) when both are
 * enabled. Settings are read under {@code bge-e5-small.} (see {@link ModelSettings}); a question
 * runs the models one thread each, at once.
 */
public final class BgeE5EmbedderProvider implements EmbedderProvider {
  static final String NAME = "bge-e5-small";

  @Override
  public String name() {
    return NAME;
  }

  /** Before bge alone, at the default order. */
  @Override
  public int order() {
    return 90;
  }

  @Override
  public Set<String> configKeys() {
    return ModelSettings.keys(NAME);
  }

  @Override
  public Embedder create(Config config, EmbedderContext context) {
    ModelSettings settings = settings(config);
    return new LoadingEmbedder(
        BgeE5Embedder.MODEL,
        BgeE5Embedder.DIMENSIONS,
        BgeE5Embedder.CALIBRATION,
        () -> BgeE5Embedder.create(settings));
  }

  /** The settings under {@code bge-e5-small.}: the models' queries on one thread each. */
  static ModelSettings settings(Config config) {
    return ModelSettings.from(config, NAME, 1);
  }
}
