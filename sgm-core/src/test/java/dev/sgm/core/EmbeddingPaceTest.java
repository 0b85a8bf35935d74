package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** How the background embedding yields the processors to callers, and when it does not. */
class EmbeddingPaceTest {
  private static final long MILLIS = TimeUnit.MILLISECONDS.toNanos(1);

  @Test
  void aSmallBatchTakenWhileCallersComeRestsFourTimesItsLength() {
    // One fifth of the time embedding, four fifths resting.
    assertEquals(20, EmbeddingQueue.restMillis(true, true, 5 * MILLIS));
  }

  @Test
  void aLargeBatchTakenWhileIdleDoesNotRestWhenASearchCameMeanwhile() {
    // A 64-text batch takes about 300 ms; resting 1.2 s after it because one search came held a
    // backlog to about 40 texts a second under a caller that searches once a second.
    assertEquals(0, EmbeddingQueue.restMillis(false, true, 300 * MILLIS));
  }

  @Test
  void nothingRestsOnceTheCallersHaveGone() {
    assertEquals(0, EmbeddingQueue.restMillis(true, false, 5 * MILLIS));
    assertEquals(0, EmbeddingQueue.restMillis(false, false, 300 * MILLIS));
  }
}
