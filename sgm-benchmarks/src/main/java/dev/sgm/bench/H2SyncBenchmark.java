package dev.sgm.bench;

import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What {@code storage.h2.sync=fsync} costs: store throughput in process at 1 and 16 callers on two
 * embedded file stores, one with the default ({@code os}: written to the operating system before
 * the answer) and one forcing every commit to the disk (concurrent commits sharing a sync),
 * measured alternately, printed side by side with the ratio. Embedders are turned off on both so
 * that the figures are the store's.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-h2-sync}; {@code -Dsgm.bench.seconds} per measurement
 * (default 5).
 */
public final class H2SyncBenchmark {
  private H2SyncBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.getInteger("sgm.bench.seconds", 5);
    List<String> embedders =
        ServiceLoader.load(EmbedderProvider.class).stream().map(p -> p.get().name()).toList();
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-h2-sync-bench");
        SgmRuntime os = open(scratch.path().resolve("os"), "os", embedders);
        SgmRuntime fsync = open(scratch.path().resolve("fsync"), "fsync", embedders)) {
      System.out.println("store data under " + scratch.path() + " (" + seconds + " s a run)");
      System.out.printf(
          Locale.ROOT,
          "%-10s %18s %24s %8s%n",
          "callers",
          "os (default), /s",
          "fsync (group commit), /s",
          "ratio");
      AtomicLong sequence = new AtomicLong();
      for (int callers : new int[] {1, 16}) {
        // Alternating which side goes first keeps the disk's state from favouring one.
        Callers.Load first =
            Callers.loadInProcess(Callers.inProcessStore(os, "os"), callers, seconds, sequence);
        Callers.Load synced =
            Callers.loadInProcess(
                Callers.inProcessStore(fsync, "fsync"), callers, seconds, sequence);
        Callers.Load second =
            Callers.loadInProcess(Callers.inProcessStore(os, "os2"), callers, seconds, sequence);
        double plain = (first.callsPerSecond() + second.callsPerSecond()) / 2;
        System.out.printf(
            Locale.ROOT,
            "%-10d %18.0f %24.0f %7.2fx   (os runs %.0f and %.0f; p50 %.2f / %.2f ms, p99 %.2f /"
                + " %.2f ms)%n",
            callers,
            plain,
            synced.callsPerSecond(),
            synced.callsPerSecond() / plain,
            first.callsPerSecond(),
            second.callsPerSecond(),
            first.p50Millis(),
            synced.p50Millis(),
            first.p99Millis(),
            synced.p99Millis());
      }
    }
  }

  private static SgmRuntime open(Path dir, String sync, List<String> embedders) {
    Map<String, String> options = new HashMap<>();
    options.put(ConfigLoader.DATA_DIR, dir.toString());
    options.put("storage.h2.sync", sync);
    if (!embedders.isEmpty()) {
      options.put("embedders.disabled", String.join(",", embedders));
    }
    return SgmRuntime.open(ConfigLoader.load(options, Map.of()));
  }
}
