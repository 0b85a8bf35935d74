package dev.sgm.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.spi.Embedder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The embeddings of the questions asked most recently: a question asked again, or a later page of
 * one, reuses its vector instead of running the model again (a few milliseconds of a core each).
 * Holds up to {@link #CAPACITY} questions, the least recently asked leaving first, and counts how
 * often a question was found here, which discovery reports.
 */
final class QueryVectors {
  /**
   * How many questions are kept: their texts (up to 2,000 characters each) and vectors (1,024 of
   * 384 floats take about 1.5 MB).
   */
  static final int CAPACITY = 1024;

  private final Embedder embedder;
  private final Map<String, float[]> recent =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, float[]> eldest) {
          return size() > CAPACITY;
        }
      };
  private long hits;
  private long misses;

  QueryVectors(Embedder embedder) {
    this.embedder = embedder;
  }

  /** The model's vector of the question {@code text}; callers must not modify it (it is shared). */
  float[] of(String text) {
    synchronized (this) {
      float[] known = recent.get(text);
      if (known != null) {
        hits++;
        return known;
      }
    }
    // Outside the lock: two callers asking the same new question may both embed it, which costs
    // what a cache would have saved but never makes one wait for another's question.
    float[] vector = embedder.embedQuery(text);
    synchronized (this) {
      misses++;
      recent.put(text, vector);
    }
    return vector;
  }

  /** How the cache has done: {@code hits} and {@code misses} since the start, and its capacity. */
  synchronized ObjectNode describe() {
    ObjectNode json = Json.object();
    json.put("capacity", CAPACITY);
    json.put("hits", hits);
    json.put("misses", misses);
    return json;
  }
}
