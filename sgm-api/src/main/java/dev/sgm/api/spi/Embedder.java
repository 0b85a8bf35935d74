package dev.sgm.api.spi;

import java.util.List;
import java.util.Objects;

/**
 * An embedding model: turns text into vectors whose closeness says how alike in meaning two texts
 * are. The engine embeds what records say and what queries ask, so that retrieval can find records
 * by meaning ({@code mode: semantic} or {@code hybrid}). One instance is shared by every caller; it
 * must be safe to call from several threads.
 */
public interface Embedder extends AutoCloseable {
  /** The model's name as discovery reports it, e.g. {@code bge-small-en-v1.5-q}. */
  String model();

  /** The length of every vector this model returns. */
  int dimensions();

  /**
   * How to read this model's cosine similarities, which no two models share (between a question and
   * an unrelated conversation turn of LoCoMo, the median is 0.53 with bge-small-en-v1.5 and 0.77
   * with e5-small-v2). Known without loading the model.
   */
  Calibration calibration();

  /**
   * Embeds the texts of records (passages), one vector per text, in order. Vectors are unit length,
   * so the dot product is the cosine similarity.
   */
  List<float[]> embedPassages(List<String> texts);

  /**
   * Embeds a query (with whatever instruction prefix the model expects for queries): the vector
   * that orders records by meaning, of which the default {@link #embedQuestion} makes a question.
   */
  float[] embedQuery(String text);

  /**
   * Embeds a question as the engine searches with it: by default its {@link #embedQuery} vector
   * both orders records and decides which match. A model that orders by one vector and decides by
   * another (two models side by side, say) overrides it.
   */
  default Question embedQuestion(String text) {
    float[] vector = embedQuery(text);
    return new Question(vector, vector);
  }

  /**
   * Loads the model now, when it loads on first use (the default does nothing). A server calls it
   * off the path of its start and of its first query; a short command never does.
   */
  default void load() {}

  /** Releases the model's native resources. */
  @Override
  void close();

  /**
   * A question embedded for search.
   *
   * @param ordering of {@link #dimensions()}; its dot product with a record's vector orders the
   *     records by meaning and scores them
   * @param matching compared (as a cosine) with the first {@code matching.length} dimensions of a
   *     record's vector, it decides whether the record matches by meaning: the floors of {@link
   *     #calibration()} apply to it. The same array as {@code ordering} when one vector does both.
   */
  record Question(float[] ordering, float[] matching) {
    public Question {
      Objects.requireNonNull(ordering, "ordering");
      Objects.requireNonNull(matching, "matching");
      if (matching.length == 0 || matching.length > ordering.length) {
        throw new IllegalArgumentException(
            "the matching vector's length must be 1 to "
                + ordering.length
                + " (the ordering vector's): "
                + matching.length);
      }
    }
  }

  /**
   * Where a model's cosine similarities start to mean something, measured on data for each model.
   *
   * @param recordFloor the cosine (of a question's matching vector, {@link Question}) from which a
   *     record matches a query by meaning: about where an unrelated text usually sits, so that
   *     below it closeness says nothing
   * @param queryFloor the cosine the best of the records closest by the ordering vector must reach
   *     for a query none of whose words is held to be about anything stored; below it, the answer
   *     is nothing
   * @param meaningWeight the weight of meaning in a hybrid score, words having the rest: how far
   *     this model's closeness is to be trusted beside the words a record shares with the query;
   *     both count, so it is above 0 and below 1
   * @param scoreFloor the similarity (of a question's ordering vector) at which a record that
   *     matches scores 0 by meaning, and 1 at similarity 1; the record floor when one vector both
   *     orders and matches
   */
  record Calibration(
      double recordFloor, double queryFloor, double meaningWeight, double scoreFloor) {
    public Calibration {
      if (!(recordFloor >= -1 && recordFloor < 1)) {
        throw new IllegalArgumentException("recordFloor must be in [-1, 1): " + recordFloor);
      }
      if (!(queryFloor >= recordFloor && queryFloor <= 1)) {
        throw new IllegalArgumentException("queryFloor must be in [recordFloor, 1]: " + queryFloor);
      }
      if (!(meaningWeight > 0 && meaningWeight < 1)) {
        throw new IllegalArgumentException("meaningWeight must be in (0, 1): " + meaningWeight);
      }
      if (!(scoreFloor >= -1 && scoreFloor < 1)) {
        throw new IllegalArgumentException("scoreFloor must be in [-1, 1): " + scoreFloor);
      }
    }

    /**
     * The calibration of a model whose one vector both orders and matches (score floor = record
     * floor).
     */
    public Calibration(double recordFloor, double queryFloor, double meaningWeight) {
      this(recordFloor, queryFloor, meaningWeight, recordFloor);
    }
  }
}
