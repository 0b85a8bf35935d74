package dev.sgm.embedding.probe;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderProvider;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Finds the embedder through {@link ServiceLoader} as the engine does and embeds a query and two
 * passages, printing what the launch test checks: the provider's module, the model, its dimensions,
 * and the query's similarity to each passage.
 */
public final class EmbedProbe {
  private EmbedProbe() {}

  public static void main(String[] args) {
    EmbedderProvider provider =
        ServiceLoader.load(EmbedderProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .filter(p -> p.name().equals("bge-small-en"))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("no bge-small-en embedder provider"));
    System.out.println("module: " + provider.getClass().getModule().getName());
    try (Embedder embedder = provider.create(Config.empty(), () -> Path.of("."))) {
      System.out.println("model: " + embedder.model());
      System.out.println("dimensions: " + embedder.dimensions());
      float[] query = embedder.embedQuery(args[0]);
      List<float[]> passages = embedder.embedPassages(List.of(args).subList(1, args.length));
      for (int i = 0; i < passages.size(); i++) {
        System.out.println("similarity " + (i + 1) + ": " + dot(query, passages.get(i)));
      }
    }
  }

  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += a[i] * b[i];
    }
    return sum;
  }
}
