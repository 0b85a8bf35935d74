package dev.sgm.embedding.bge;

import dev.sgm.api.spi.Embedder;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The model while it loads: loading it (some 0.7 s of a core) starts at once on a thread of its
 * own, so that a server opens its store and its transports meanwhile instead of after; a call to
 * embed waits for the load. The name and the length of the vectors are known without the model.
 */
final class LoadingEmbedder implements Embedder {
  private final CompletableFuture<BgeEmbedder> loaded = new CompletableFuture<>();
  private volatile boolean closed;

  LoadingEmbedder(BgeSettings settings) {
    Thread.ofPlatform()
        .daemon()
        .name(BgeEmbedderProvider.NAME + "-load")
        .start(
            () -> {
              try {
                loaded.complete(BgeEmbedder.load(settings));
              } catch (RuntimeException | Error e) {
                loaded.completeExceptionally(e);
              }
            });
  }

  private BgeEmbedder whenLoaded() {
    if (closed) {
      throw new IllegalStateException(BgeEmbedder.MODEL + ": closed");
    }
    try {
      return loaded.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof RuntimeException cause
          ? cause
          : new IllegalStateException(BgeEmbedder.MODEL + ": the model could not be loaded", e);
    }
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
  public List<float[]> embedPassages(List<String> texts) {
    return whenLoaded().embedPassages(texts);
  }

  @Override
  public float[] embedQuery(String text) {
    return whenLoaded().embedQuery(text);
  }

  /** Closes the model once it is loaded (at once when it is). */
  @Override
  public void close() {
    closed = true;
    loaded.thenAccept(BgeEmbedder::close);
  }
}
