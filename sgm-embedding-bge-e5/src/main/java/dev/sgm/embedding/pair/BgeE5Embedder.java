package dev.sgm.embedding.pair;

import dev.langchain4j.model.embedding.onnx.e5smallv2q.E5SmallV2QuantizedEmbeddingModel;
import dev.sgm.api.spi.Embedder;
import dev.sgm.embedding.bge.BgeEmbedder;
import dev.sgm.embedding.bge.ModelSettings;
import dev.sgm.embedding.bge.OnnxModel;
import dev.sgm.embedding.bge.QueryGate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;

/**
 * bge-small-en-v1.5 and e5-small-v2, both quantised, side by side ({@link OnnxModel} each). A
 * record's vector is the two models' vectors of its text one after the other, each scaled by the
 * square root of its model's share, so that its dot product with a question's ordering vector (made
 * the same way of the question) is the shares' weighted sum of the two models' cosines. bge with
 * its instruction for queries decides which records match, on bge's own floors, from the first half
 * of their vectors.
 *
 * <p>Why both: on LoCoMo's development half the two together order the answers better than either
 * alone (docs/spec/retrieval.md gives the figures), while e5's cosines sit close together (for a
 * question, the closest turn of an unrelated conversation is at 0.77 in the median, of its own
 * conversation at 0.85), too close to tell by a floor what matches; bge with its instruction tells
 * them apart as before.
 *
 * <p>The shares and the instructions are in every stored vector, and the index knows its vectors by
 * the plugin's name alone: a change to either must come with a new plugin name, or stored vectors
 * of the old kind would be compared with questions of the new.
 */
final class BgeE5Embedder implements Embedder {
  static final String MODEL = BgeEmbedder.MODEL + "+e5-small-v2-q";

  /**
   * Each model's share of the pair's similarity, in proportion to {@code 1 / (1 - floor)} for
   * floors of 0.5 (bge) and 0.7 (e5, where unrelated texts start to be rare): then {@code
   * (similarity - 0.625) / 0.375} is the mean of the two models' own scores {@code (cosine - floor)
   * / (1 - floor)}, each model counting for what it tells above its own floor.
   */
  static final double BGE_SHARE = 0.375;

  static final double E5_SHARE = 1 - BGE_SHARE;

  /**
   * bge's floors (0.5, 0.6) on bge's cosine, which decides; meaning and words weigh alike; the
   * pair's similarity scores from 0.625 (docs/spec/retrieval.md, 6, says how each was chosen).
   */
  static final Calibration CALIBRATION =
      new Calibration(0.5, 0.6, 0.5, BGE_SHARE * 0.5 + E5_SHARE * 0.7);

  /** What e5 expects before a query, and before a passage. */
  static final String E5_QUERY = "query: ";

  static final String E5_PASSAGE = "passage: ";

  static final OnnxModel.Spec E5 =
      new OnnxModel.Spec(
          "e5-small-v2-q",
          E5SmallV2QuantizedEmbeddingModel.class,
          "/e5-small-v2-q.onnx",
          "/e5-small-v2-q-tokenizer.json",
          OnnxModel.Pooling.MEAN,
          384);

  static final int DIMENSIONS = BgeEmbedder.DIMENSIONS + E5.dimensions();

  private static final float BGE_SCALE = (float) Math.sqrt(BGE_SHARE);
  private static final float E5_SCALE = (float) Math.sqrt(E5_SHARE);

  private final OnnxModel bge;
  private final OnnxModel e5;

  private BgeE5Embedder(OnnxModel bge, OnnxModel e5) {
    this.bge = bge;
    this.e5 = e5;
  }

  /**
   * Both models in their jars (no network), with their workers started; each is read when first
   * needed. A query of either holds back the passages of both.
   */
  static BgeE5Embedder create(ModelSettings settings) {
    QueryGate gate = new QueryGate();
    OnnxModel bge = OnnxModel.create(BgeEmbedder.SPEC, settings, gate);
    try {
      return new BgeE5Embedder(bge, OnnxModel.create(E5, settings, gate));
    } catch (RuntimeException e) {
      bge.close();
      throw e;
    }
  }

  @Override
  public void load() {
    bge.openSessions();
    e5.openSessions();
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
    List<float[]> first = bge.embedPassages("", texts);
    List<float[]> second = e5.embedPassages(E5_PASSAGE, texts);
    List<float[]> vectors = new ArrayList<>(texts.size());
    for (int i = 0; i < texts.size(); i++) {
      vectors.add(side(first.get(i), second.get(i)));
    }
    return vectors;
  }

  /** The ordering vector of a question: both models', without bge's instruction. */
  @Override
  public float[] embedQuery(String text) {
    Future<float[]> plain = bge.query("", text);
    Future<float[]> second = e5.query(E5_QUERY, text);
    try {
      return side(bge.result(plain), e5.result(second));
    } finally {
      List.of(plain, second).forEach(job -> job.cancel(false));
    }
  }

  /**
   * The three runs at once, on the processors they find free: bge with and without its instruction
   * and e5. bge orders better without the instruction (beside e5), and decides better with it.
   */
  @Override
  public Question embedQuestion(String text) {
    Future<float[]> instructed = bge.query(BgeEmbedder.QUERY_PREFIX, text);
    Future<float[]> plain = bge.query("", text);
    Future<float[]> second = e5.query(E5_QUERY, text);
    try {
      float[] ordering = side(bge.result(plain), e5.result(second));
      return new Question(ordering, bge.result(instructed));
    } finally {
      // When one failed, the others are not needed (cancelling a finished one does nothing).
      List.of(instructed, plain, second).forEach(job -> job.cancel(false));
    }
  }

  /** The two models' unit vectors side by side, each scaled by its share's root: a unit vector. */
  private static float[] side(float[] first, float[] second) {
    float[] vector = new float[DIMENSIONS];
    for (int i = 0; i < first.length; i++) {
      vector[i] = first[i] * BGE_SCALE;
    }
    for (int i = 0; i < second.length; i++) {
      vector[first.length + i] = second[i] * E5_SCALE;
    }
    return vector;
  }

  @Override
  public void close() {
    try {
      bge.close();
    } finally {
      e5.close();
    }
  }
}
