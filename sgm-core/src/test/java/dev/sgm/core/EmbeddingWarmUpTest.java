package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.spi.Embedder;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The background embedding loads the model once the process has started, not during its start: at
 * once when a record comes to be embedded, else after a while.
 */
class EmbeddingWarmUpTest {
  /** A model that counts its loads and answers every text with one vector. */
  private static final class CountingModel implements Embedder {
    final AtomicInteger loads = new AtomicInteger();
    final CountDownLatch loaded = new CountDownLatch(1);

    @Override
    public void load() {
      loads.incrementAndGet();
      loaded.countDown();
    }

    @Override
    public String model() {
      return "counting";
    }

    @Override
    public Calibration calibration() {
      return new Calibration(0.5, 0.6, 0.5);
    }

    @Override
    public int dimensions() {
      return 2;
    }

    @Override
    public List<float[]> embedPassages(List<String> texts) {
      List<float[]> vectors = new ArrayList<>();
      texts.forEach(t -> vectors.add(new float[] {1f, 0f}));
      return vectors;
    }

    @Override
    public float[] embedQuery(String text) {
      return new float[] {1f, 0f};
    }

    @Override
    public void close() {}
  }

  @Test
  void theModelLoadsWhenTheFirstRecordComesNotWhileTheProcessStarts() throws Exception {
    CountingModel model = new CountingModel();
    try (EmbeddingQueue queue = new EmbeddingQueue(model, () -> {})) {
      queue.start();
      // The wait before loading lasts seconds; nothing has come to be embedded.
      assertEquals(0, model.loads.get(), "loaded during the start");
      queue.enqueue(1, "a record to embed");
      assertTrue(model.loaded.await(30, TimeUnit.SECONDS), "a record to embed loads the model");
    }
    assertEquals(1, model.loads.get());
  }

  @Test
  void withNothingToEmbedTheModelStillLoadsAfterAWhile() throws Exception {
    CountingModel model = new CountingModel();
    try (EmbeddingQueue queue = new EmbeddingQueue(model, () -> {})) {
      queue.start();
      assertTrue(model.loaded.await(30, TimeUnit.SECONDS), "loaded ahead of the first query");
    }
  }
}
