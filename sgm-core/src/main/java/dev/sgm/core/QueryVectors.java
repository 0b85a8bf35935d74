package dev.sgm.core;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.spi.Embedder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The embeddings of the questions asked most recently: a question asked again, or a later page of
 * one, reuses its vectors instead of running the model again (a few milliseconds of a core each).
 * Holds up to {@link #CAPACITY} questions, the least recently asked leaving first, and counts how
 * often a question was found here, which discovery reports.
 */
final class QueryVectors {
  /**
   * How many questions are kept: their texts (up to 2,000 characters each) and vectors (1,024 of
   * 384 floats take about 1.5 MB; of two models side by side, 1,152 floats, about 4.5 MB).
   */
  static final int CAPACITY = 1024;

  private final Embedder embedder;
  private final Map<String, Embedder.Question> recent =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Embedder.Question> eldest) {
          return size() > CAPACITY;
        }
      };
  private long hits;
  private long misses;

  QueryVectors(Embedder embedder) {
    this.embedder = embedder;
  }

  /**
   * The model's vectors of the question {@code text}; callers must not modify them (they are
   * shared).
   *
   * @throws IllegalStateException when the model returns an ordering vector of another length than
   *     it states, which the index could not compare with the records' vectors
   */
  Embedder.Question of(String text) {
    synchronized (this) {
      Embedder.Question known = recent.get(text);
      if (known != null) {
        hits++;
        return known;
      }
    }
    // Outside the lock: two callers asking the same new question may both embed it, which costs
    // what a cache would have saved but never makes one wait for another's question.
    Embedder.Question question = embedder.embedQuestion(text);
    if (question == null || question.ordering().length != embedder.dimensions()) {
      throw new IllegalStateException(
          "the embedding model "
              + embedder.model()
              + " embedded a question as "
              + (question == null ? "nothing" : question.ordering().length + " dimensions")
              + ", not the "
              + embedder.dimensions()
              + " it states");
    }
    synchronized (this) {
      misses++;
      recent.put(text, question);
    }
    return question;
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
