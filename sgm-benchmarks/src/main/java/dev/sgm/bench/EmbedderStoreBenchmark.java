package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.bench.Measurement.Result;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * What an active embedder costs a store: the same single stores of agent notes on two durable
 * embedded stores, one with every embedder plugin on the module path active and one with them
 * turned off ({@code embedders.disabled}), measured alternately in paired rounds; the figure is the
 * median of the rounds' ratios. Before the store without the embedder is timed, the one with it is
 * given time to finish any embedding it deferred (when it reports lag), so neither side is timed
 * while the other works, and the time that took is printed. Target: at least 0.8x.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-store-embedder}; {@code -Dsgm.bench.ops} stores per round
 * (default 2000).
 */
public final class EmbedderStoreBenchmark {
  private static final int ROUNDS = 5;
  private static final Caller CALLER = Caller.embedded();

  private EmbedderStoreBenchmark() {}

  public static void main(String[] args) throws Exception {
    int count = Integer.getInteger("sgm.bench.ops", 2000);
    List<String> names =
        ServiceLoader.load(EmbedderProvider.class).stream()
            .map(p -> p.get().name())
            .sorted()
            .toList();
    if (names.isEmpty()) {
      System.out.println(
          "store throughput with and without an embedder: skipped: no embedder plugin on the module"
              + " path (a dependency of sgm-benchmarks, or SGM_BENCH_PLUGINS=jar-or-folder)");
      return;
    }
    System.out.println("embedder plugins on the module path: " + names);
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-embedder-bench")) {
      Path dir = scratch.path();
      try (SgmRuntime with = open(dir.resolve("with"), Map.of());
          SgmRuntime without =
              open(dir.resolve("without"), Map.of("embedders.disabled", String.join(",", names)))) {
        JsonNode withEmbedding = retrieval(with).path("embedding");
        JsonNode withoutEmbedding = retrieval(without).path("embedding");
        if (withEmbedding.isMissingNode()) {
          System.out.println(
              "not supported: the engine does not activate the embedder (discovery has no"
                  + " retrieval.embedding with the plugin present)");
          return;
        }
        if (!withoutEmbedding.isMissingNode()) {
          System.out.println(
              "not supported: embedders.disabled="
                  + String.join(",", names)
                  + " leaves the"
                  + " embedder active (discovery still shows "
                  + Json.write(withoutEmbedding)
                  + ")");
          return;
        }
        System.out.println("with the embedder: " + Json.write(withEmbedding));
        storeWithAndWithout(with, without, count);
      }
    }
  }

  /**
   * Stores on each side in paired rounds, the order swapped each round, and prints the best round
   * of each, the median ratio and how long deferred embedding took to catch up.
   */
  private static void storeWithAndWithout(SgmRuntime with, SgmRuntime without, int count)
      throws Exception {
    AgentNotes notes = new AgentNotes(7);
    int[] keys = {0};
    List<Double> ratios = new ArrayList<>();
    Map<String, Result> best = new HashMap<>();
    List<Double> drains = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      Map<String, Result> thisRound = new HashMap<>();
      for (SgmRuntime sgm :
          round % 2 == 0 ? new SgmRuntime[] {with, without} : new SgmRuntime[] {without, with}) {
        if (sgm == without) {
          awaitSemanticIndex(with).ifPresent(drains::add);
        }
        String side = sgm == with ? "with" : "without";
        thisRound.put(
            side,
            Measurement.measure(
                "store " + side + " the embedder",
                count,
                k -> store(sgm, "n" + k, notes.next()),
                keys));
      }
      awaitSemanticIndex(with).ifPresent(drains::add);
      ratios.add(thisRound.get("with").opsPerSecond() / thisRound.get("without").opsPerSecond());
      thisRound.forEach(
          (k, r) -> best.merge(k, r, (a, b) -> a.opsPerSecond() >= b.opsPerSecond() ? a : b));
    }
    System.out.println("best round of each:");
    best.get("without").print();
    best.get("with").print();
    Collections.sort(ratios);
    System.out.printf(
        Locale.ROOT,
        "store with the embedder / without: %.2fx, median of %d paired rounds %s (target >="
            + " 0.8x)%n",
        ratios.get(ratios.size() / 2),
        ratios.size(),
        ratios.stream().map(r -> String.format(Locale.ROOT, "%.2f", r)).toList());
    System.out.println(
        drains.isEmpty()
            ? "the server reports no semantic index lag, so deferred embedding (if any) is not"
                + " accounted for"
            : String.format(
                Locale.ROOT,
                "deferred embedding: the semantic index took up to %.1f s to catch up after a"
                    + " round of %,d stores",
                Collections.max(drains),
                count));
  }

  private static SgmRuntime open(Path dir, Map<String, String> extra) {
    Map<String, String> options = new HashMap<>(extra);
    options.put(ConfigLoader.DATA_DIR, dir.toString());
    return SgmRuntime.open(ConfigLoader.load(options, Map.of()));
  }

  private static JsonNode retrieval(SgmRuntime sgm) {
    return sgm.service().invoke(CALLER, "discover", Json.object()).path("retrieval");
  }

  /** Seconds until the server reports no lag (at most two minutes); empty when it reports none. */
  private static Optional<Double> awaitSemanticIndex(SgmRuntime sgm) throws InterruptedException {
    long start = System.nanoTime();
    while (true) {
      Optional<Boolean> caughtUp =
          SemanticLag.caughtUp(SemanticLag.reports("retrieval", retrieval(sgm)));
      double seconds = (System.nanoTime() - start) / 1e9;
      if (caughtUp.isEmpty()) {
        return Optional.empty();
      }
      if (caughtUp.get() || seconds > 120) {
        return Optional.of(seconds);
      }
      Thread.sleep(100);
    }
  }

  private static void store(SgmRuntime sgm, String id, String content) {
    sgm.service().store(CALLER, StoreRequest.of(AgentNotes.record(id, content)));
  }
}
