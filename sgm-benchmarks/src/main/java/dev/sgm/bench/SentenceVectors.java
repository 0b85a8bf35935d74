package dev.sgm.bench;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderContext;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.api.spi.PluginSelection;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * An embedder for the retrieve benchmark's million records, where the model itself would take
 * hours: a record's vector is the normalised sum of the real model's vectors of its clauses, each
 * clause embedded once and remembered. {@link AgentNotes} draws its clauses from a few thousand, so
 * a million records cost a few thousand embeddings, while their vectors keep the model's geometry
 * (records about one subject lie near each other) rather than that of random points. Queries are
 * embedded by the real model, at its real cost.
 *
 * <p>Only for {@link RetrieveBenchmark} with {@code -Dsgm.bench.vectors=sentences}: the plugin
 * comes after every real model, and refuses to start unless named in {@code embedders.enabled}, so
 * that turning the real model off never turns this one on.
 */
public final class SentenceVectors implements EmbedderProvider {
  /** The plugin's name, which {@code embedders.enabled} must give for it to run. */
  public static final String NAME = "bench-sentences";

  /** Where a note's clauses end: after a full stop, a colon or a semicolon. */
  private static final Pattern CLAUSE_END = Pattern.compile("(?<=[.:;])\\s+");

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public int order() {
    return 10_000;
  }

  @Override
  public Embedder create(Config config, EmbedderContext context) {
    if (!config.getList("embedders.enabled").contains(NAME)) {
      throw PluginSelection.startupError(
          "the embedder "
              + NAME
              + " is the retrieve benchmark's (-Dsgm.bench.vectors=sentences) and runs only when"
              + " embedders.enabled names it; disable it as well (embedders.disabled)");
    }
    EmbedderProvider real =
        EmbedBenchmark.firstModel(config)
            .orElseThrow(
                () ->
                    PluginSelection.startupError(
                        "the embedder "
                            + NAME
                            + " needs a real embedding model on the module path"));
    return new ClauseSums(real.create(config, context));
  }

  private static final class ClauseSums implements Embedder {
    private final Embedder model;
    private final Map<String, float[]> clauses = new ConcurrentHashMap<>();

    ClauseSums(Embedder model) {
      this.model = model;
    }

    @Override
    public String model() {
      return model.model() + "+clause-sums";
    }

    @Override
    public Calibration calibration() {
      return model.calibration();
    }

    @Override
    public int dimensions() {
      return model.dimensions();
    }

    @Override
    public List<float[]> embedPassages(List<String> texts) {
      Set<String> missing = new LinkedHashSet<>();
      List<String[]> split = new ArrayList<>(texts.size());
      for (String text : texts) {
        String[] parts = CLAUSE_END.split(text.strip());
        split.add(parts);
        for (String part : parts) {
          if (!clauses.containsKey(part)) {
            missing.add(part);
          }
        }
      }
      if (!missing.isEmpty()) {
        List<String> asked = List.copyOf(missing);
        List<float[]> vectors = model.embedPassages(asked);
        for (int i = 0; i < asked.size(); i++) {
          clauses.put(asked.get(i), vectors.get(i));
        }
      }
      List<float[]> vectors = new ArrayList<>(texts.size());
      for (String[] parts : split) {
        float[] sum = new float[model.dimensions()];
        for (String part : parts) {
          float[] clause = clauses.get(part);
          for (int d = 0; d < sum.length; d++) {
            sum[d] += clause[d];
          }
        }
        vectors.add(unit(sum));
      }
      return vectors;
    }

    private static float[] unit(float[] vector) {
      double length = 0;
      for (float v : vector) {
        length += v * v;
      }
      if (length == 0) {
        return vector;
      }
      float scale = (float) (1 / Math.sqrt(length));
      for (int d = 0; d < vector.length; d++) {
        vector[d] *= scale;
      }
      return vector;
    }

    @Override
    public float[] embedQuery(String text) {
      return model.embedQuery(text);
    }

    @Override
    public Question embedQuestion(String text) {
      return model.embedQuestion(text);
    }

    @Override
    public void close() {
      model.close();
    }
  }
}
