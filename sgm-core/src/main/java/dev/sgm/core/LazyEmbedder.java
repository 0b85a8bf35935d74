package dev.sgm.core;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderContext;
import dev.sgm.api.spi.EmbedderProvider;
import java.util.List;

/**
 * An embedding model loaded when first used. Loading one takes most of a second and a few hundred
 * megabytes; a short command that only stores or reads never pays for it, and a server loads it in
 * the background as it starts.
 */
final class LazyEmbedder implements Embedder {
  private final EmbedderProvider provider;
  private final Config config;
  private final EmbedderContext context;
  private Embedder loaded;
  private boolean closed;

  LazyEmbedder(EmbedderProvider provider, Config config, EmbedderContext context) {
    this.provider = provider;
    this.config = config;
    this.context = context;
  }

  /** The plugin that provides the model. */
  String providerName() {
    return provider.name();
  }

  private synchronized Embedder instance() {
    if (closed) {
      throw new IllegalStateException("the embedding model is closed");
    }
    if (loaded == null) {
      loaded = provider.create(config, context);
    }
    return loaded;
  }

  @Override
  public void load() {
    instance().load();
  }

  @Override
  public String model() {
    return instance().model();
  }

  @Override
  public int dimensions() {
    return instance().dimensions();
  }

  @Override
  public Calibration calibration() {
    return instance().calibration();
  }

  @Override
  public List<float[]> embedPassages(List<String> texts) {
    return instance().embedPassages(texts);
  }

  @Override
  public float[] embedQuery(String text) {
    return instance().embedQuery(text);
  }

  @Override
  public Question embedQuestion(String text) {
    return instance().embedQuestion(text);
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (loaded != null) {
      loaded.close();
      loaded = null;
    }
  }
}
