package dev.sgm.embedding.bge;

import dev.langchain4j.model.embedding.onnx.bgesmallenv15q.BgeSmallEnV15QuantizedEmbeddingModel;
import dev.sgm.api.spi.Embedder;
import java.util.List;

/**
 * The quantised bge-small-en-v1.5 model in process ({@link OnnxModel}): questions carry the model's
 * instruction for queries, passages none.
 */
public final class BgeEmbedder implements Embedder {
  public static final String MODEL = "bge-small-en-v1.5-q";
  public static final int DIMENSIONS = 384;

  /**
   * How to read this model's cosines: a record matches by meaning from 0.5; a question none of
   * whose words is held is about something stored only if its closest record reaches 0.6; meaning
   * and words weigh alike (docs/spec/retrieval.md, 6, says how each was chosen on data).
   */
  static final Calibration CALIBRATION = new Calibration(0.5, 0.6, 0.5);

  /** The instruction bge models expect before a query (and not before a passage). */
  public static final String QUERY_PREFIX =
      "Represent this sentence for searching relevant passages: ";

  /**
   * The model inside langchain4j's jar (its files are outside any package, so readable from another
   * module); a class literal does not run the class's initialiser, which would load a session of
   * its own.
   */
  public static final OnnxModel.Spec SPEC =
      new OnnxModel.Spec(
          MODEL,
          BgeSmallEnV15QuantizedEmbeddingModel.class,
          "/bge-small-en-v1.5-q.onnx",
          "/bge-small-en-v1.5-q-tokenizer.json",
          OnnxModel.Pooling.CLS,
          DIMENSIONS);

  private final OnnxModel model;

  private BgeEmbedder(OnnxModel model) {
    this.model = model;
  }

  /** The model in its jar (no network), with its workers started; it is read when first needed. */
  static BgeEmbedder create(ModelSettings settings) {
    return new BgeEmbedder(OnnxModel.create(SPEC, settings, new QueryGate()));
  }

  @Override
  public void load() {
    model.openSessions();
  }

  @Override
  public String model() {
    return MODEL;
  }

  @Override
  public int dimensions() {
    return DIMENSIONS;
  }

  @Override
  public Calibration calibration() {
    return CALIBRATION;
  }

  @Override
  public List<float[]> embedPassages(List<String> texts) {
    return model.embedPassages("", texts);
  }

  @Override
  public float[] embedQuery(String text) {
    return model.result(model.query(QUERY_PREFIX, text));
  }

  @Override
  public void close() {
    model.close();
  }
}
