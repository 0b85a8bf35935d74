package dev.sgm.embedding.bge;

import dev.sgm.api.spi.Embedder;
import java.util.List;
import java.util.function.Supplier;

/**
 * A model loaded when it is first needed (some 0.7 s of a core each): its name, the length of its
 * vectors and its calibration are known without it, so that discovery, which reports them, does not
 * wait for the load, and a short command that never embeds never loads it. A server loads it off
 * its start's path ({@link #load()}).
 */
public final class LoadingEmbedder implements Embedder {
  private final String model;
  private final int dimensions;
  private final Calibration calibration;
  private final Supplier<? extends Embedder> loader;
  private Embedder loaded;
  private boolean closed;

  /**
   * @param model the model's name, as {@code loader}'s embedder will report it
   * @param dimensions the length of its vectors
   * @param calibration its calibration
   * @param loader loads it
   */
  public LoadingEmbedder(
      String model, int dimensions, Calibration calibration, Supplier<? extends Embedder> loader) {
    this.model = model;
    this.dimensions = dimensions;
    this.calibration = calibration;
    this.loader = loader;
  }

  private synchronized Embedder loaded() {
    if (closed) {
      throw new IllegalStateException(model + ": closed");
    }
    if (loaded == null) {
      loaded = loader.get();
    }
    return loaded;
  }

  @Override
  public void load() {
    loaded().load();
  }

  @Override
  public String model() {
    return model;
  }

  @Override
  public int dimensions() {
    return dimensions;
  }

  @Override
  public Calibration calibration() {
    return calibration;
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
  public Question embedQuestion(String text) {
    return loaded().embedQuestion(text);
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
