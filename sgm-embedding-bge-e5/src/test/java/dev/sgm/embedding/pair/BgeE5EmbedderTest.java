package dev.sgm.embedding.pair;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.onnx.e5smallv2q.E5SmallV2QuantizedEmbeddingModel;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.api.spi.PluginSelection;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BgeE5EmbedderTest {
  private static Embedder pair;
  private static Embedder bge;
  // e5 as langchain4j runs it, apart from the plugin: what the second half must hold.
  private static E5SmallV2QuantizedEmbeddingModel e5;

  @BeforeAll
  static void load() {
    pair = provider("bge-e5-small").create(Config.empty(), () -> Path.of("."));
    bge = provider("bge-small-en").create(Config.empty(), () -> Path.of("."));
    e5 = new E5SmallV2QuantizedEmbeddingModel();
  }

  @AfterAll
  static void close() {
    pair.close();
    bge.close();
  }

  private static EmbedderProvider provider(String name) {
    return ServiceLoader.load(EmbedderProvider.class).stream()
        .map(ServiceLoader.Provider::get)
        .filter(p -> p.name().equals(name))
        .findFirst()
        .orElseThrow();
  }

  @Test
  void theModelIsNamedAndCalibratedWithoutLoadingIt() {
    Embedder fresh = provider("bge-e5-small").create(Config.empty(), () -> Path.of("."));
    fresh.close();
    assertEquals("bge-small-en-v1.5-q+e5-small-v2-q", fresh.model());
    assertEquals(768, fresh.dimensions());
    assertEquals(new Embedder.Calibration(0.5, 0.6, 0.5, 0.625), fresh.calibration());
    assertThrows(IllegalStateException.class, () -> fresh.embedQuestion("closed"));
  }

  @Test
  void aRecordsVectorIsBothModelsSideBySideEachScaledByTheRootOfItsShare() {
    String text = "Persistence is handled by PostgreSQL 15";
    float[] vector = pair.embedPassages(List.of(text)).get(0);
    assertEquals(768, vector.length);
    assertEquals(1.0, norm(vector), 1e-5);
    assertArrayEquals(scaled(bge.embedPassages(List.of(text)).get(0), 0.375), first(vector), 1e-5f);
    assertArrayEquals(scaled(e5Vector("passage: " + text), 0.625), second(vector), 1e-4f);
  }

  @Test
  void aQuestionOrdersByBothModelsWithoutBgesInstructionAndMatchesByBgeWithIt() {
    String text = "which database do we use";
    Embedder.Question question = pair.embedQuestion(text);
    assertEquals(1.0, norm(question.ordering()), 1e-5);
    // bge without its instruction is bge's vector of the text as a passage.
    assertArrayEquals(
        scaled(bge.embedPassages(List.of(text)).get(0), 0.375), first(question.ordering()), 1e-5f);
    assertArrayEquals(
        scaled(e5Vector("query: " + text), 0.625), second(question.ordering()), 1e-4f);
    assertArrayEquals(bge.embedQuery(text), question.matching(), 1e-5f);
    assertArrayEquals(question.ordering(), pair.embedQuery(text), 1e-6f);
  }

  @Test
  void thePairsSimilarityAboveItsScoreFloorIsTheMeanOfBothModelsOwnScores() {
    String text = "which database do we use";
    String record = "Persistence is handled by PostgreSQL 15";
    double similarity =
        dot(pair.embedQuestion(text).ordering(), pair.embedPassages(List.of(record)).get(0));
    double bgeCosine = dot(bge.embedPassages(List.of(text)).get(0), bgeRecord(record));
    double e5Cosine = dot(e5Vector("query: " + text), e5Vector("passage: " + record));
    double mean = ((bgeCosine - 0.5) / 0.5 + (e5Cosine - 0.7) / 0.3) / 2;
    assertEquals(mean, (similarity - 0.625) / (1 - 0.625), 1e-4);
  }

  @Test
  void aParaphraseIsCloserThanAnUnrelatedNoteByBothVectors() {
    Embedder.Question question = pair.embedQuestion("which database do we use");
    List<float[]> records =
        pair.embedPassages(
            List.of("Persistence is handled by PostgreSQL 15", "Lunch is served at noon"));
    assertTrue(dot(question.ordering(), records.get(0)) > dot(question.ordering(), records.get(1)));
    assertTrue(
        dotFirst(question.matching(), records.get(0)) > 0.6,
        "bge decides on its own scale: the paraphrase is above the query floor");
    assertTrue(dotFirst(question.matching(), records.get(1)) < 0.5, "the unrelated note is not");
  }

  @Test
  void concurrentCallersGetTheVectorsASerialCallerGets() throws Exception {
    List<String> texts =
        IntStream.range(0, 30)
            .mapToObj(i -> "Note " + i + ": the release moved to week " + i)
            .toList();
    List<float[]> serial = pair.embedPassages(texts);
    Embedder.Question serialQuestion = pair.embedQuestion("when is the release");
    ExecutorService callers = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<float[]>>> batches = new ArrayList<>();
      List<Future<Embedder.Question>> questions = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        batches.add(callers.submit(() -> pair.embedPassages(texts)));
        questions.add(callers.submit(() -> pair.embedQuestion("when is the release")));
      }
      for (Future<List<float[]>> batch : batches) {
        List<float[]> vectors = batch.get();
        for (int i = 0; i < texts.size(); i++) {
          assertArrayEquals(serial.get(i), vectors.get(i), 1e-6f, "text " + i);
        }
      }
      for (Future<Embedder.Question> question : questions) {
        assertArrayEquals(serialQuestion.ordering(), question.get().ordering(), 1e-6f);
        assertArrayEquals(serialQuestion.matching(), question.get().matching(), 1e-6f);
      }
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void blankTextsEmbedAsOneUnitVector() {
    List<float[]> blanks = pair.embedPassages(List.of("", "  ", "\u0000"));
    for (float[] vector : blanks) {
      assertEquals(1.0, norm(vector), 1e-5);
      assertArrayEquals(blanks.get(0), vector, 1e-6f);
    }
    assertEquals(List.of(), pair.embedPassages(List.of()));
    assertEquals(1.0, norm(pair.embedQuestion(" ").ordering()), 1e-5);
  }

  @Test
  void itComesBeforeBgeAloneWhenBothAreEnabled() {
    List<EmbedderProvider> found =
        ServiceLoader.load(EmbedderProvider.class).stream()
            .map(ServiceLoader.Provider::get)
            .toList();
    List<String> active =
        PluginSelection.select("embedder", "sgm-embedding-", found, Config.empty()).stream()
            .map(EmbedderProvider::name)
            .toList();
    assertEquals(List.of("bge-e5-small", "bge-small-en"), active);
  }

  @Test
  void settingsAreReadUnderThePluginsNameAndChecked() {
    assertEquals(1, BgeE5EmbedderProvider.settings(Config.empty()).intraOpThreads());
    assertEquals(
        16,
        BgeE5EmbedderProvider.settings(Config.of(Map.of("bge-e5-small.batch-size", "16")))
            .batchSize());
    SgmException error =
        assertThrows(
            SgmException.class,
            () -> BgeE5EmbedderProvider.settings(Config.of(Map.of("bge-e5-small.workers", "0"))));
    assertTrue(error.getMessage().contains("bge-e5-small.workers"), error.getMessage());
  }

  private static float[] bgeRecord(String text) {
    return bge.embedPassages(List.of(text)).get(0);
  }

  private static float[] e5Vector(String text) {
    float[] vector = e5.embed(TextSegment.from(text)).content().vector();
    return scaled(vector, 1 / dot(vector, vector));
  }

  /** {@code vector} times the root of {@code share}. */
  private static float[] scaled(float[] vector, double share) {
    float[] out = vector.clone();
    for (int i = 0; i < out.length; i++) {
      out[i] *= (float) Math.sqrt(share);
    }
    return out;
  }

  private static float[] first(float[] vector) {
    return Arrays.copyOfRange(vector, 0, 384);
  }

  private static float[] second(float[] vector) {
    return Arrays.copyOfRange(vector, 384, 768);
  }

  /** The cosine of a bge vector with the first half of a pair's vector. */
  private static double dotFirst(float[] bgeVector, float[] pairVector) {
    return dot(bgeVector, first(pairVector)) / Math.sqrt(0.375);
  }

  private static double dot(float[] a, float[] b) {
    double sum = 0;
    for (int i = 0; i < a.length; i++) {
      sum += a[i] * b[i];
    }
    return sum;
  }

  private static double norm(float[] v) {
    return Math.sqrt(dot(v, v));
  }
}
