package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.spi.Embedder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class QueryVectorsTest {
  /** A model that says which questions it was asked, and embeds each as its length. */
  private static class Asked implements Embedder {
    final List<String> questions = new ArrayList<>();

    @Override
    public String model() {
      return "asked";
    }

    @Override
    public Calibration calibration() {
      return new Calibration(0.5, 0.6, 0.5);
    }

    @Override
    public int dimensions() {
      return 1;
    }

    @Override
    public List<float[]> embedPassages(List<String> texts) {
      throw new UnsupportedOperationException();
    }

    @Override
    public float[] embedQuery(String text) {
      questions.add(text);
      return new float[] {text.length()};
    }

    @Override
    public void close() {}
  }

  @Test
  void aQuestionAskedAgainIsNotEmbeddedAgainAndTheCountsSaySo() {
    Asked model = new Asked();
    QueryVectors vectors = new QueryVectors(model);
    assertArrayEquals(new float[] {5}, vectors.of("cache").ordering());
    assertArrayEquals(new float[] {5}, vectors.of("cache").ordering());
    assertArrayEquals(new float[] {4}, vectors.of("pool").ordering());
    assertArrayEquals(new float[] {5}, vectors.of("cache").ordering());
    assertEquals(List.of("cache", "pool"), model.questions);
    assertEquals(2, vectors.describe().path("hits").asLong());
    assertEquals(2, vectors.describe().path("misses").asLong());
    assertEquals(QueryVectors.CAPACITY, vectors.describe().path("capacity").asInt());
  }

  @Test
  void aModelsOwnMatchingVectorIsKeptBesideItsOrderingOne() {
    Asked model =
        new Asked() {
          @Override
          public Question embedQuestion(String text) {
            return new Question(embedQuery(text), new float[] {-text.length()});
          }
        };
    QueryVectors vectors = new QueryVectors(model);
    vectors.of("cache");
    Embedder.Question again = vectors.of("cache");
    assertArrayEquals(new float[] {5}, again.ordering());
    assertArrayEquals(new float[] {-5}, again.matching());
    assertEquals(List.of("cache"), model.questions);
  }

  @Test
  void aQuestionOfAnotherLengthThanTheModelStatesIsRefusedNamingTheModel() {
    Asked model =
        new Asked() {
          @Override
          public int dimensions() {
            return 2;
          }
        };
    IllegalStateException refused =
        assertThrows(IllegalStateException.class, () -> new QueryVectors(model).of("cache"));
    assertTrue(refused.getMessage().contains("asked"), refused.getMessage());
    assertTrue(refused.getMessage().contains("1 dimensions, not the 2"), refused.getMessage());
  }

  @Test
  void theLeastRecentlyAskedQuestionLeavesFirstWhenItIsFull() {
    Asked model = new Asked();
    QueryVectors vectors = new QueryVectors(model);
    vectors.of("first");
    vectors.of("second");
    for (int i = 0; i < QueryVectors.CAPACITY - 2; i++) {
      vectors.of("q" + i);
    }
    vectors.of("first"); // asked again: now the most recent
    vectors.of("one more"); // the cache is full: "second" leaves
    model.questions.clear();
    vectors.of("first");
    vectors.of("second");
    assertEquals(List.of("second"), model.questions);
  }
}
