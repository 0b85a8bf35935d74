package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.transport.grpc.GrpcTransport;
import dev.sgm.transport.grpc.MemoryGrpc;
import dev.sgm.transport.grpc.Provenance;
import dev.sgm.transport.grpc.ReadRequest;
import dev.sgm.transport.grpc.Record;
import dev.sgm.transport.grpc.ScopeEntry;
import dev.sgm.transport.grpc.StoreRequest;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Unary store and read throughput over gRPC on loopback at 1, 8 and 64 concurrent callers, each as
 * a ratio to a no-op RPC (the health check) on the same server and channel: the transport's own
 * limit. The store is durable (a file write per commit) on the embedded store.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-grpc}.
 */
public final class GrpcBenchmark {
  private static final int PROJECTS = 10;
  private static final int PER_PROJECT = 1000;

  private GrpcBenchmark() {}

  private interface Call {
    void run(long n);
  }

  private record Load(double callsPerSecond, double p50Millis, double p99Millis) {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.getInteger("sgm.bench.seconds", 5);
    Path dir = Files.createTempDirectory("sgm-grpc-bench");
    Map<String, String> options =
        Map.of(
            ConfigLoader.DATA_DIR, dir.toString(), "grpc.port", "0", "transports.enabled", "grpc");
    try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
      for (int p = 0; p < PROJECTS; p++) {
        List<JsonNode> batch = new ArrayList<>();
        for (int i = 0; i < PER_PROJECT; i++) {
          batch.add(
              Json.parse(
                  "{\"id\":\"r"
                      + i
                      + "\",\"type\":\"note\",\"scope\":{\"project\":\"p"
                      + p
                      + "\"},"
                      + "\"content\":\"a record to read back over gRPC\",\"provenance\":{\"agent\":\"bench\"}}"));
        }
        sgm.service().storeBatch(Caller.embedded(), new BatchStoreRequest(batch, false));
      }
      GrpcTransport server = (GrpcTransport) sgm.startTransports().get(0);
      ManagedChannel channel =
          NettyChannelBuilder.forTarget("127.0.0.1:" + server.port()).usePlaintext().build();
      try {
        HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel);
        MemoryGrpc.MemoryBlockingStub memory = MemoryGrpc.newBlockingStub(channel);
        HealthCheckRequest check = HealthCheckRequest.newBuilder().build();
        String run = Long.toString(System.nanoTime(), 36);
        Call noop = n -> health.check(check);
        Call read =
            n -> {
              ThreadLocalRandom random = ThreadLocalRandom.current();
              memory.read(
                  ReadRequest.newBuilder()
                      .addScope(
                          ScopeEntry.newBuilder()
                              .setKey("project")
                              .setValue("p" + random.nextInt(PROJECTS)))
                      .setId("r" + random.nextInt(PER_PROJECT))
                      .build());
            };
        Call store =
            n ->
                memory.store(
                    StoreRequest.newBuilder()
                        .setRecord(
                            Record.newBuilder()
                                .setId("w" + run + "-" + n)
                                .setType("note")
                                .addScope(
                                    ScopeEntry.newBuilder().setKey("project").setValue("load"))
                                .setContent("a record written under load")
                                .setProvenance(Provenance.newBuilder().setAgent("bench")))
                        .build());
        System.out.printf(
            Locale.ROOT, "gRPC on loopback, %d s per run, durable embedded store%n", seconds);
        System.out.printf(
            Locale.ROOT,
            "%-6s %-8s %12s %9s %9s %14s %8s%n",
            "op",
            "callers",
            "calls/s",
            "p50 ms",
            "p99 ms",
            "no-op calls/s",
            "ratio");
        for (int callers : new int[] {1, 8, 64}) {
          Load baseline = load(noop, callers, seconds);
          for (String name : List.of("read", "store")) {
            Load measured = load(name.equals("read") ? read : store, callers, seconds);
            System.out.printf(
                Locale.ROOT,
                "%-6s %-8d %12.0f %9.3f %9.3f %14.0f %7.2fx%n",
                name,
                callers,
                measured.callsPerSecond(),
                measured.p50Millis(),
                measured.p99Millis(),
                baseline.callsPerSecond(),
                measured.callsPerSecond() / baseline.callsPerSecond());
          }
        }
        System.out.println("targets: read >= 0.6x, store >= 0.5x of the no-op RPC");
      } finally {
        channel.shutdownNow();
      }
    }
  }

  /** {@code callers} threads calling as fast as they can; a warm-up second first. */
  private static Load load(Call call, int callers, int seconds) throws InterruptedException {
    AtomicLong sequence = new AtomicLong();
    run(call, callers, 1, sequence, null);
    List<long[]> latencies = new ArrayList<>();
    long calls = run(call, callers, seconds, sequence, latencies);
    long[] all =
        latencies.stream().flatMapToLong(Arrays::stream).filter(v -> v > 0).sorted().toArray();
    return new Load(
        calls / (double) seconds,
        all[all.length / 2] / 1e6,
        all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)] / 1e6);
  }

  private static long run(
      Call call, int callers, int seconds, AtomicLong sequence, List<long[]> latencies)
      throws InterruptedException {
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    AtomicLong total = new AtomicLong();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < callers; t++) {
      long[] samples = new long[2_000_000];
      if (latencies != null) {
        latencies.add(samples);
      }
      threads.add(
          Thread.ofPlatform()
              .start(
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
}
