package dev.sgm.bench;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.core.ConfigLoader;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the embedder plugin costs: model load time, one short query's latency (p50, p99), passages
 * embedded per second in batches of 64 by 1 and by 4 concurrent callers, and a query's latency
 * while 4 callers embed batches. The texts are short conversation turns, like LoCoMo's. The
 * embedder is found through {@link ServiceLoader}, as the engine finds it.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-embed [key=value ...]}, e.g. {@code
 * bge-e5-small.intra-op-threads=2 bge-e5-small.workers=1} to try other thread settings, or {@code
 * embedders.disabled=bge-e5-small} to measure bge alone.
 */
public final class EmbedBenchmark {
  private static final int BATCH = 64;
  private static final int SECONDS = Integer.getInteger("sgm.bench.seconds", 10);

  private EmbedBenchmark() {}

  /**
   * The model the engine would run: the first embedder plugin by order that is a model (not the
   * benchmark's stand-in) and that {@code config}'s {@code embedders.disabled} (the environment's
   * {@code SGM_EMBEDDERS_DISABLED} included) leaves on.
   */
  static EmbedderProvider modelProvider(Config config) {
    return firstModel(config)
        .orElseThrow(() -> new IllegalStateException("no embedder plugin on the module path"));
  }

  /** {@link #modelProvider}'s choice, or nothing without a model that is left on. */
  static Optional<EmbedderProvider> firstModel(Config config) {
    List<String> disabled = config.getList("embedders.disabled");
    return ServiceLoader.load(EmbedderProvider.class).stream()
        .map(ServiceLoader.Provider::get)
        // The retrieve benchmark's stand-in wraps a model; this measures the model itself.
        .filter(p -> !SentenceVectors.NAME.equals(p.name()))
        .filter(p -> !disabled.contains(p.name()))
        .min(
            Comparator.comparingInt(EmbedderProvider::order).thenComparing(EmbedderProvider::name));
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> settings = new HashMap<>();
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (eq < 1) {
        throw new IllegalArgumentException("arguments are key=value settings: " + arg);
      }
      settings.put(arg.substring(0, eq), arg.substring(eq + 1));
    }
    long start = System.nanoTime();
    EmbedderProvider provider = modelProvider(ConfigLoader.load(settings));
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-embed-bench");
        Embedder embedder = provider.create(Config.of(settings), scratch::path)) {
      double loadMillis = (System.nanoTime() - start) / 1e6;
      embedder.embedQuestion("warm up");
      double firstMillis = (System.nanoTime() - start) / 1e6;
      System.out.printf(
          Locale.ROOT,
          "%s (%s, %d dimensions) on %d processors, settings %s%n",
          provider.name(),
          embedder.model(),
          embedder.dimensions(),
          Runtime.getRuntime().availableProcessors(),
          settings.isEmpty() ? "default" : settings);
      System.out.printf(
          Locale.ROOT,
          "  model load                     %7.0f ms   (first vector after %.0f ms)%n",
          loadMillis,
          firstMillis);

      List<String> turns = turns(512);
      List<String> questions = questions(200);
      // Warm-up: the JIT and ONNX Runtime's first runs of each shape.
      for (int i = 0; i < 3; i++) {
        embedder.embedPassages(turns.subList(0, 256));
      }
      long[] single = new long[1000];
      for (int i = 0; i < single.length; i++) {
        long t0 = System.nanoTime();
        embedder.embedQuestion(questions.get(i % questions.size()));
        single[i] = System.nanoTime() - t0;
      }
      Arrays.sort(single);
      System.out.printf(
          Locale.ROOT,
          "  one short query, alone         p50 %6.2f ms   p99 %6.2f ms%n",
          Measurement.p50Millis(single),
          Measurement.p99Millis(single));
      for (int callers : new int[] {1, 4}) {
        System.out.printf(
            Locale.ROOT,
            "  batches of %d, %d caller%s      %7.0f texts/s%n",
            BATCH,
            callers,
            callers == 1 ? " " : "s",
            throughput(embedder, turns, callers));
      }
      long[] underLoad = queriesUnderLoad(embedder, turns, questions, 4);
      System.out.printf(
          Locale.ROOT,
          "  one query, 4 callers batching  p50 %6.2f ms   p99 %6.2f ms%n",
          Measurement.p50Millis(underLoad),
          Measurement.p99Millis(underLoad));
    }
  }

  /** Texts per second embedded by {@code callers} threads each embedding batches for a while. */
  private static double throughput(Embedder embedder, List<String> turns, int callers)
      throws InterruptedException {
    AtomicLong texts = new AtomicLong();
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    long start = System.nanoTime();
    for (int c = 0; c < callers; c++) {
      int offset = c * BATCH;
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int from = offset; !stop.get(); from = (from + BATCH) % turns.size()) {
                      int to = Math.min(turns.size(), from + BATCH);
                      embedder.embedPassages(turns.subList(from, to));
                      texts.addAndGet(to - from);
                    }
                  }));
    }
    Thread.sleep(SECONDS * 1000L);
    stop.set(true);
    for (Thread thread : threads) {
      thread.join();
    }
    return texts.get() / ((System.nanoTime() - start) / 1e9);
  }

  /** Latencies of single queries made one after another while {@code callers} embed batches. */
  private static long[] queriesUnderLoad(
      Embedder embedder, List<String> turns, List<String> questions, int callers)
      throws InterruptedException {
    AtomicBoolean stop = new AtomicBoolean();
    List<Thread> threads = new ArrayList<>();
    for (int c = 0; c < callers; c++) {
      threads.add(
          Thread.ofPlatform()
              .start(
                  () -> {
                    for (int from = 0; !stop.get(); from = (from + BATCH) % turns.size()) {
                      embedder.embedPassages(
                          turns.subList(from, Math.min(turns.size(), from + BATCH)));
                    }
                  }));
    }
    long[] nanos = new long[400];
    for (int i = 0; i < nanos.length; i++) {
      long t0 = System.nanoTime();
      embedder.embedQuestion(questions.get(i % questions.size()));
      nanos[i] = System.nanoTime() - t0;
      Thread.sleep(10);
    }
    stop.set(true);
    for (Thread thread : threads) {
      thread.join();
    }
    Arrays.sort(nanos);
    return nanos;
  }

  private static final String[] PEOPLE = {"Caroline", "Melanie", "Jon", "Gina", "Deborah", "Sam"};
  private static final String[] DID = {
    "went to a support group meeting",
    "signed up for a pottery class",
    "ran a charity race",
    "adopted a rescue cat",
    "started painting landscapes again",
    "visited her grandmother",
    "took the kids camping by the lake",
    "opened a small dance studio",
    "read a book about" + " identity",
    "lost his job at the bank",
    "planned a road trip to the coast",
    "baked bread for the neighbours"
  };
  private static final String[] WHEN = {
    "last weekend", "yesterday", "two weeks ago", "on Friday", "in May", "after work"
  };
  private static final String[] FEELING = {
    "It felt really freeing.", "I was nervous at first.", "The kids loved it.",
    "It reminded me why I started.", "Honestly it was exhausting.", "I can't wait to go back."
  };

  /** Short turns of a made-up conversation between friends, distinct from each other. */
  static List<String> turns(int count) {
    List<String> turns = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      turns.add(
          PEOPLE[i % PEOPLE.length]
              + ": I "
              + DID[(i / PEOPLE.length) % DID.length].replace("her ", "my ")
              + " "
              + WHEN[(i / 7) % WHEN.length]
              + ". "
              + FEELING[(i / 3) % FEELING.length]
              + (i >= PEOPLE.length * DID.length ? " (" + i + ")" : ""));
    }
    return turns;
  }

  /** Short questions about such a conversation. */
  static List<String> questions(int count) {
    List<String> questions = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      questions.add(
          "When did "
              + PEOPLE[i % PEOPLE.length]
              + " "
              + DID[(i / PEOPLE.length) % DID.length].replace("her ", "their ").replace("my ", "")
              + "?");
    }
    return questions;
  }
}
