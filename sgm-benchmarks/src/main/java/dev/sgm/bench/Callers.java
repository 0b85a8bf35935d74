package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.Scope;
import dev.sgm.api.StoreRequest;
import dev.sgm.core.SgmRuntime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Concurrent callers calling as fast as they can, for the transport benchmarks: calls per second,
 * p50 and p99. Also the same reads and stores made in process, straight to the engine, which shows
 * how much of a store's cost is the engine's rather than the transport's.
 */
final class Callers {
  private Callers() {}

  /** One call; {@code n} is unique across every run that shares a sequence. */
  interface Call {
    void run(long n);
  }

  /** What a run measured. */
  record Load(double callsPerSecond, double p50Millis, double p99Millis) {}

  /** {@code callers} platform threads calling for {@code seconds}, after a warm-up second. */
  static Load load(Call call, int callers, int seconds, AtomicLong sequence)
      throws InterruptedException {
    return load(Thread.ofPlatform(), call, callers, seconds, sequence);
  }

  /**
   * Like {@link #load}, on virtual threads: the servers handle requests on virtual threads, so
   * calls made in process do too, for a like-for-like comparison.
   */
  static Load loadInProcess(Call call, int callers, int seconds, AtomicLong sequence)
      throws InterruptedException {
    return load(Thread.ofVirtual(), call, callers, seconds, sequence);
  }

  private static Load load(
      Thread.Builder threads, Call call, int callers, int seconds, AtomicLong sequence)
      throws InterruptedException {
    run(threads, call, callers, 1, sequence, null);
    List<long[]> latencies = new ArrayList<>();
    long calls = run(threads, call, callers, seconds, sequence, latencies);
    long[] all =
        latencies.stream().flatMapToLong(Arrays::stream).filter(v -> v > 0).sorted().toArray();
    return new Load(
        calls / (double) seconds, Measurement.p50Millis(all), Measurement.p99Millis(all));
  }

  /** Runs {@code call} from {@code callers} threads for {@code seconds}; returns the calls made. */
  static long run(
      Thread.Builder builder,
      Call call,
      int callers,
      int seconds,
      AtomicLong sequence,
      List<long[]> latencies)
      throws InterruptedException {
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    AtomicLong total = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < callers; t++) {
      // Room for every latency of a fast in-process run, within a benchmark's heap at 128 callers.
      long[] samples = new long[Math.max(100_000, 8_000_000 / callers)];
      if (latencies != null) {
        latencies.add(samples);
      }
      threads.add(
          builder.start(
              () -> {
                int i = 0;
                while (System.nanoTime() < end) {
                  long t0 = System.nanoTime();
                  call.run(sequence.incrementAndGet());
                  if (i < samples.length) {
                    samples[i++] = System.nanoTime() - t0;
                  }
                  total.incrementAndGet();
                }
              }));
    }
    for (Thread thread : threads) {
      thread.join();
    }
    return total.get();
  }

  /**
   * Stores the records the read benchmarks read: {@code perProject} records {@code r0, r1, ...} in
   * each of projects {@code p0, p1, ...}.
   */
  static void preload(SgmRuntime sgm, int projects, int perProject) {
    for (int p = 0; p < projects; p++) {
      List<JsonNode> batch = new ArrayList<>();
      for (int i = 0; i < perProject; i++) {
        batch.add(
            Json.parse(
                "{\"id\":\"r"
                    + i
                    + "\",\"type\":\"note\",\"scope\":{\"project\":\"p"
                    + p
                    + "\"},\"content\":\"a record to read back\",\"tags\":[\"bench\"],"
                    + "\"provenance\":{\"agent\":\"bench\"}}"));
      }
      sgm.service().storeBatch(Caller.embedded(), new BatchStoreRequest(batch, false));
    }
  }

  /** A read by identity of one of the preloaded records, in process. */
  static Call inProcessRead(SgmRuntime sgm, int projects, int perProject) {
    return n -> {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      sgm.service()
          .read(
              Caller.embedded(),
              new ReadRequest(
                  Scope.of(Map.of("project", "p" + random.nextInt(projects))),
                  "r" + random.nextInt(perProject),
                  false));
    };
  }

  /** A store of a new record shaped like the transports' benchmark records, in process. */
  static Call inProcessStore(SgmRuntime sgm, String run) {
    return n -> sgm.service().store(Caller.embedded(), StoreRequest.of(loadRecord(run, n)));
  }

  /** The new record {@code n} of a run, shaped like the transports' benchmark records. */
  static ObjectNode loadRecord(String run, long n) {
    return Json.parseObject(
        "{\"id\":\"p"
            + run
            + "-"
            + n
            + "\",\"type\":\"note\",\"scope\":{\"project\":\"load\"},"
            + "\"content\":\"a record written under load\",\"tags\":[\"bench\"],"
            + "\"provenance\":{\"agent\":\"bench\"}}",
        "record");
  }
}
