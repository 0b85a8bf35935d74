package dev.sgm.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Stream;

/** Timing of one operation repeated: warm-up first, then each call timed; ops/s, p50 and p99. */
final class Measurement {
  private Measurement() {}

  /**
   * Whether {@code round} belongs to the second side of two taking turns A, B, B, A, A, B, ...: a
   * steady drift of the machine (a disk, a growing table) then weighs on both sides alike.
   */
  static boolean secondSide(int round) {
    return round % 4 == 1 || round % 4 == 2;
  }

  /**
   * Waits until the launcher has finished writing its start-up caches under {@code cacheHome} (its
   * XDG_CACHE_HOME). The first run of a kind records the classes it loads and the next one writes
   * the cache from that record in the background: run a command twice, then wait here, and later
   * runs start as users' runs do once the cache is there.
   */
  static void awaitStartupCaches(Path cacheHome) throws IOException, InterruptedException {
    Path caches = cacheHome.resolve("sgm");
    long deadline = System.nanoTime() + 120_000_000_000L;
    while (writing(caches)) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("the start-up caches in " + caches + " were not written");
      }
      Thread.sleep(50);
    }
  }

  private static boolean writing(Path caches) throws IOException {
    if (!Files.isDirectory(caches)) {
      return false;
    }
    try (Stream<Path> files = Files.list(caches)) {
      return files.anyMatch(file -> Files.exists(file.resolve("writing")));
    }
  }

  /** The median of sorted latencies in nanoseconds, in milliseconds. */
  static double p50Millis(long[] sortedNanos) {
    return sortedNanos[sortedNanos.length / 2] / 1e6;
  }

  /** The 99th percentile of sorted latencies in nanoseconds, in milliseconds. */
  static double p99Millis(long[] sortedNanos) {
    int index = (int) Math.min(sortedNanos.length - 1, Math.ceil(sortedNanos.length * 0.99) - 1);
    return sortedNanos[index] / 1e6;
  }

  /** One measured operation. */
  record Result(String name, int count, double seconds, long[] nanos) {
    double opsPerSecond() {
      return count / seconds;
    }

    double p50Millis() {
      return Measurement.p50Millis(nanos);
    }

    double p99Millis() {
      return Measurement.p99Millis(nanos);
    }

    void print() {
      System.out.printf(
          Locale.ROOT,
          "  %-30s %9.0f ops/s   p50 %7.3f ms   p99 %7.3f ms%n",
          name,
          opsPerSecond(),
          p50Millis(),
          p99Millis());
    }
  }

  /** A call to measure; {@code key} is fresh on every call, for operations that need new keys. */
  interface Op {
    void run(int key) throws Exception;
  }

  /** Runs {@code op} for warm-up (so the JIT compiles the path), then {@code count} timed times. */
  static Result measure(String name, int count, Op op, int[] freshKeys) throws Exception {
    for (int i = 0; i < Math.max(2000, count / 5); i++) {
      op.run(freshKeys[0]++);
    }
    long[] nanos = new long[count];
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      long t0 = System.nanoTime();
      op.run(freshKeys[0]++);
      nanos[i] = System.nanoTime() - t0;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Arrays.sort(nanos);
    return new Result(name, count, seconds, nanos);
  }
}
