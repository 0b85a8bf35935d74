package dev.sgm.bench;

import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.StoreRequest;
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

/**
 * What keeping history costs a store: the same stores (new records, and changes to existing ones)
 * on two durable embedded stores, one with the history profile active and one with it disabled,
 * measured alternately in seven paired rounds; the figure is the median of the rounds' ratios.
 * Target: history slows a store by at most 30%.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-history}.
 */
public final class HistoryBenchmark {
  private static final int ROUNDS = 7;

  private HistoryBenchmark() {}

  public static void main(String[] args) throws Exception {
    int count = Integer.getInteger("sgm.bench.ops", 3000);
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-history-bench")) {
      Path dir = scratch.path();
      try (SgmRuntime with = open(dir.resolve("with"), true);
          SgmRuntime without = open(dir.resolve("without"), false)) {
        if (!with.discovery().supports("history") || without.discovery().supports("history")) {
          throw new IllegalStateException("the history profile must be on the module path");
        }
        int[] keys = {0};
        Map<String, List<Double>> ratios = new HashMap<>();
        Map<String, Result> best = new HashMap<>();
        for (int round = 0; round < ROUNDS; round++) {
          Map<String, Result> thisRound = new HashMap<>();
          for (SgmRuntime sgm :
              round % 2 == 0
                  ? new SgmRuntime[] {with, without}
                  : new SgmRuntime[] {without, with}) {
            String side = sgm == with ? "history" : "plain";
            thisRound.put(
                side + " new",
                Measurement.measure(
                    "store new record", count, k -> store(sgm, "n" + k, "v"), keys));
            thisRound.put(
                side + " change",
                Measurement.measure(
                    "store a change", count, k -> store(sgm, "hot" + (k % 100), "v" + k), keys));
          }
          for (String kind : new String[] {"new", "change"}) {
            ratios
                .computeIfAbsent(kind, k -> new ArrayList<>())
                .add(
                    thisRound.get("history " + kind).opsPerSecond()
                        / thisRound.get("plain " + kind).opsPerSecond());
          }
          thisRound.forEach((key, result) -> keep(best, key, result));
        }
        for (String side : new String[] {"plain", "history"}) {
          System.out.println(
              side.equals("plain")
                  ? "history disabled (best round):"
                  : "history active (best round):");
          best.get(side + " new").print();
          best.get(side + " change").print();
        }
        for (String kind : new String[] {"new", "change"}) {
          List<Double> sorted = new ArrayList<>(ratios.get(kind));
          Collections.sort(sorted);
          double median = sorted.get(sorted.size() / 2);
          System.out.printf(
              Locale.ROOT,
              "store (%s): history costs %.0f%% of throughput, median of %d paired rounds %s (target <= 30%%)%n",
              kind,
              100 * (1 - median),
              sorted.size(),
              sorted.stream().map(r -> String.format(Locale.ROOT, "%.2f", r)).toList());
        }
      }
    }
  }

  private static void keep(Map<String, Result> best, String key, Result result) {
    best.merge(key, result, (a, b) -> a.opsPerSecond() >= b.opsPerSecond() ? a : b);
  }

  private static SgmRuntime open(Path dir, boolean history) {
    Map<String, String> options = new HashMap<>();
    options.put(ConfigLoader.DATA_DIR, dir.toString());
    if (!history) {
      options.put("profiles.disabled", "history");
    }
    return SgmRuntime.open(ConfigLoader.load(options, Map.of()));
  }

  private static void store(SgmRuntime sgm, String id, String content) {
    sgm.service()
        .store(
            Caller.embedded(),
            StoreRequest.of(
                Json.parseObject(
                    "{\"id\":\""
                        + id
                        + "\",\"type\":\"note\",\"scope\":{\"project\":\"bench\"},\"title\":\"a record"
                        + " under history\",\"content\":\""
                        + content
                        + " with some words to index\",\"tags\":[\"bench\"],"
                        + "\"provenance\":{\"agent\":\"bench\"}}",
                    "record")));
  }
}
