package dev.sgm.api.spi;

import java.util.List;

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
   * Embeds the texts of records (passages), one vector per text, in order. Vectors are unit length,
   * so the dot product is the cosine similarity.
   */
  List<float[]> embedPassages(List<String> texts);

  /** Embeds a query (with whatever instruction prefix the model expects for queries). */
  float[] embedQuery(String text);

  /**
   * Loads the model now, when it loads on first use (the default does nothing). A server calls it
   * off the path of its start and of its first query; a short command never does.
   */
  default void load() {}

  /** Releases the model's native resources. */
  @Override
  void close();
}
