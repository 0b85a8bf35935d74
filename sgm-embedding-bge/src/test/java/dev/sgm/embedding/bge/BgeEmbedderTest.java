package dev.sgm.embedding.bge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.ServiceLoader;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class BgeEmbedderTest {
  private static Embedder embedder;

  @BeforeAll
  static void load() {
    embedder = new BgeEmbedderProvider().create(Config.empty(), () -> Path.of("."));
  }

  @AfterAll
  static void close() {
    embedder.close();
  }

  @Test
  void theModelIsNamedWithoutLoadingItAndLoadsWhenFirstNeeded() {
    Embedder fresh = new BgeEmbedderProvider().create(Config.empty(), () -> Path.of("."));
    try {
      assertEquals("bge-small-en-v1.5-q", fresh.model());
      assertEquals(384, fresh.dimensions());
      assertEquals(new Embedder.Calibration(0.5, 0.6, 0.5), fresh.calibration());
      assertArrayEquals(embedder.embedQuery("which database"), fresh.embedQuery("which database"));
      fresh.load(); // loaded already: nothing more
    } finally {
      fresh.close();
    }
    assertThrows(IllegalStateException.class, () -> fresh.embedQuery("closed"));
    // Closed before it was ever needed: nothing to release, and nothing loads.
    Embedder unused = new BgeEmbedderProvider().create(Config.empty(), () -> Path.of("."));
    unused.close();
    assertThrows(IllegalStateException.class, unused::load);
  }

  @Test
  void namesTheModelAndItsDimensions() {
    assertEquals("bge-small-en-v1.5-q", embedder.model());
    assertEquals(384, embedder.dimensions());
  }

  @Test
  void everyVectorHasTheModelsLengthAndUnitNorm() {
    List<float[]> vectors =
        new ArrayList<>(embedder.embedPassages(List.of("The build uses Maven", "", "a")));
    vectors.add(embedder.embedQuery("what build tool do we use"));
    for (float[] vector : vectors) {
      assertEquals(384, vector.length);
      assertEquals(1.0, norm(vector), 1e-5);
    }
  }

  @Test
  void aQuestionIsCloserToThePassageThatAnswersItThanToAnUnrelatedOne() {
    float[] query = embedder.embedQuery("what build tool do we use");
    List<float[]> passages =
        embedder.embedPassages(List.of("The build uses Maven", "We had pizza on Friday"));
    double maven = dot(query, passages.get(0));
    double pizza = dot(query, passages.get(1));
    assertTrue(maven > pizza + 0.1, "maven " + maven + " vs pizza " + pizza);
  }

  @Test
  void conversationTurnsAreFoundByMeaningNotWords() {
    List<String> turns =
        List.of(
            "I adopted a puppy last weekend, a little beagle named Max.",
            "My sister is moving to Lisbon for her new job in March.",
            "We finally painted the kitchen a pale green.");
    List<float[]> vectors = embedder.embedPassages(turns);
    String[] questions = {
      "What kind of dog does she have?",
      "Where is her sister relocating?",
      "What colour is the kitchen?"
    };
    for (int q = 0; q < questions.length; q++) {
      float[] query = embedder.embedQuery(questions[q]);
      int best = 0;
      for (int t = 1; t < turns.size(); t++) {
        if (dot(query, vectors.get(t)) > dot(query, vectors.get(best))) {
          best = t;
        }
      }
      assertEquals(q, best, questions[q]);
    }
  }

  @Test
  void aQueryCarriesTheModelsInstructionAndAPassageDoesNot() {
    String text = "which database do we keep";
    float[] query = embedder.embedQuery(text);
    assertArrayEquals(
        embedder.embedPassages(List.of(BgeEmbedder.QUERY_PREFIX + text)).get(0), query, 1e-6f);
    assertTrue(dot(query, embedder.embedPassages(List.of(text)).get(0)) < 0.9999);
  }

  @Test
  void aBatchGivesTheSameVectorsAsSingleTexts() {
    // More texts than one batch holds (64), so the split into batches is covered too.
    List<String> texts = IntStream.range(0, 150).mapToObj(BgeEmbedderTest::turn).toList();
    List<float[]> batch = embedder.embedPassages(texts);
    assertEquals(texts.size(), batch.size());
    for (int i = 0; i < texts.size(); i += 7) {
      assertArrayEquals(
          embedder.embedPassages(List.of(texts.get(i))).get(0), batch.get(i), 1e-6f, "text " + i);
    }
    assertFalse(Arrays.equals(batch.get(0), batch.get(1)), "different texts, different vectors");
  }

  @Test
  void concurrentCallersGetTheVectorsASerialCallerGets() throws Exception {
    List<String> texts = IntStream.range(0, 40).mapToObj(BgeEmbedderTest::turn).toList();
    List<float[]> serial = embedder.embedPassages(texts);
    float[] serialQuery = embedder.embedQuery("what did we decide about the release date");
    ExecutorService callers = Executors.newFixedThreadPool(4);
    try {
      List<Future<List<float[]>>> batches = new ArrayList<>();
      List<Future<float[]>> queries = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        batches.add(callers.submit(() -> embedder.embedPassages(texts)));
        Callable<float[]> query =
            () -> embedder.embedQuery("what did we decide about the release date");
        queries.add(callers.submit(query));
      }
      for (Future<List<float[]>> batch : batches) {
        List<float[]> vectors = batch.get();
        for (int i = 0; i < texts.size(); i++) {
          assertArrayEquals(serial.get(i), vectors.get(i), 1e-6f, "text " + i);
        }
      }
      for (Future<float[]> query : queries) {
        assertArrayEquals(serialQuery, query.get(), 1e-6f);
      }
    } finally {
      callers.shutdownNow();
    }
  }

  @Test
  void blankTextsEmbedWithoutFailingAsOneUnitVector() {
    List<float[]> blanks = embedder.embedPassages(List.of("", "   ", "\n\t", "\u0000\u0001"));
    for (float[] vector : blanks) {
      assertEquals(1.0, norm(vector), 1e-5);
      assertArrayEquals(blanks.get(0), vector, 1e-6f);
    }
    assertArrayEquals(blanks.get(0), embedder.embedQuery(" "), 1e-6f);
    assertTrue(dot(blanks.get(0), embedder.embedPassages(List.of("Maven")).get(0)) < 0.99);
    assertEquals(List.of(), embedder.embedPassages(List.of()));
  }

  @Test
  void aLongTextCostsAboutOneWindowAndIsEmbeddedFromItsStart() {
    String start = "The deployment runbook says to drain the queue before restarting workers. ";
    String huge = start.repeat(1400); // about 100 KB
    float[] vector =
        assertTimeoutPreemptively(
            Duration.ofSeconds(10), () -> embedder.embedPassages(List.of(huge)).get(0));
    assertArrayEquals(
        embedder.embedPassages(List.of(huge.substring(0, 2048))).get(0), vector, 1e-6f);
  }

  @Test
  void aClosedEmbedderRefusesWork() {
    Embedder other = BgeEmbedder.create(BgeEmbedderProvider.settings(Config.empty()));
    other.close();
    other.close();
    assertThrows(IllegalStateException.class, () -> other.embedQuery("anything"));
    assertThrows(IllegalStateException.class, () -> other.embedPassages(List.of("anything")));
  }

  @Test
  void settingsAreReadUnderThePluginsNameAndChecked() {
    ModelSettings settings =
        BgeEmbedderProvider.settings(
            Config.of(
                java.util.Map.of(
                    "bge-small-en.workers", "3",
                    "bge-small-en.intra-op-threads", "2",
                    "bge-small-en.batch-size", "16",
                    "bge-small-en.max-chars", "500")));
    assertEquals(new ModelSettings("bge-small-en.", 3, 2, 16, 500), settings);
    SgmException error =
        assertThrows(
            SgmException.class,
            () ->
                BgeEmbedderProvider.settings(
                    Config.of(java.util.Map.of("bge-small-en.workers", "0"))));
    assertTrue(error.getMessage().contains("bge-small-en.workers"), error.getMessage());
  }

  @Test
  void theProviderIsFoundByServiceLoader() {
    List<String> names =
        ServiceLoader.load(EmbedderProvider.class).stream().map(p -> p.get().name()).toList();
    assertEquals(List.of("bge-small-en"), names);
  }

  /** Short, distinct conversation turns. */
  static String turn(int i) {
    String[] who = {"Caroline", "Melanie", "Jon", "Gina"};
    String[] what = {
      "went hiking near the lake", "started a pottery class", "finished reading a novel",
      "visited her parents", "tried a new ramen place", "fixed the garden fence"
    };
    return who[i % who.length] + " " + what[i % what.length] + " on day " + i + ".";
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
