package dev.sgm.embedding.bge;

import dev.sgm.api.spi.Embedder;
import java.util.List;

/**
 * The model, loaded when it is first needed (some 0.7 s of a core): its name, the length of its
 * vectors and its calibration are known without it, so that discovery, which reports them, does not
 * wait for the load, and a short command that never embeds never loads it. A server loads it off
 * its start's path ({@link #load()}).
 */
final class LoadingEmbedder implements Embedder {
  private final BgeSettings settings;
  private BgeEmbedder model;
  private boolean closed;

  LoadingEmbedder(BgeSettings settings) {
    this.settings = settings;
  }

  private synchronized BgeEmbedder loaded() {
    if (closed) {
      throw new IllegalStateException(BgeEmbedder.MODEL + ": closed");
    }
    if (model == null) {
      model = BgeEmbedder.load(settings);
    }
    return model;
  }

  @Override
  public void load() {
    loaded();
  }

  @Override
  public String model() {
    return BgeEmbedder.MODEL;
  }

  @Override
  public int dimensions() {
    return BgeEmbedder.DIMENSIONS;
  }

  @Override
  public Calibration calibration() {
    return BgeEmbedder.CALIBRATION;
  }

  @Override
  public List<float[]> embedPassages(List<String> texts) {
    return loaded().embedPassages(texts);
  }

  @Override
  public float[] embedQuery(String text) {
    return loaded().embedQuery(text);
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (model != null) {
      model.close();
      model = null;
    }
  }
}
