package dev.sgm.bench;

import dev.sgm.bench.Callers.Call;
import dev.sgm.bench.Callers.Load;
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
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Unary store and read throughput over gRPC on loopback at 1, 8 and 64 concurrent callers, each as
 * a ratio to a no-op RPC (the health check) on the same server and channel: the transport's own
 * limit. The store is durable (a file write per commit) on the embedded store. Each row also shows
 * the same reads and stores made in process, without a transport ({@link Callers}).
 *
 * <p>Run: {@code ./sgm-benchmarks/run-grpc}.
 */
public final class GrpcBenchmark {
  private static final int PROJECTS = 10;
  private static final int PER_PROJECT = 1000;

  private GrpcBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.getInteger("sgm.bench.seconds", 5);
    int warmup = Integer.getInteger("sgm.bench.warmup", 30);
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-grpc-bench")) {
      Path dir = scratch.path();
      Map<String, String> options =
          Map.of(
              ConfigLoader.DATA_DIR,
              dir.toString(),
              "grpc.port",
              "0",
              "transports.enabled",
              "grpc");
      try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
        Callers.preload(sgm, PROJECTS, PER_PROJECT);
        GrpcTransport server = (GrpcTransport) sgm.startTransports().get(0);
        ManagedChannel channel =
            NettyChannelBuilder.forTarget("127.0.0.1:" + server.port()).usePlaintext().build();
        try {
          measure(sgm, channel, seconds, warmup);
        } finally {
          channel.shutdownNow();
        }
      }
    }
  }

  /** Warms the calls up, then prints a row for each read and store at each number of callers. */
  private static void measure(SgmRuntime sgm, ManagedChannel channel, int seconds, int warmup)
      throws InterruptedException {
    HealthGrpc.HealthBlockingStub health = HealthGrpc.newBlockingStub(channel);
    MemoryGrpc.MemoryBlockingStub memory = MemoryGrpc.newBlockingStub(channel);
    HealthCheckRequest check = HealthCheckRequest.newBuilder().build();
    String run = Long.toString(System.nanoTime(), 36);
    Call noop = n -> health.check(check);
    Call read = read(memory);
    Call store = store(memory, run);
    // One sequence for every run, so that each store writes a new record rather than
    // rewriting one an earlier run wrote.
    AtomicLong sequence = new AtomicLong();
    // The JIT takes tens of seconds of load to compile the storage and server paths; without
    // a warm-up the first rows would measure the interpreter rather than steady state.
    System.out.printf(Locale.ROOT, "warming up: %d s of no-op, read and store calls%n", warmup);
    Call inProcessRead = Callers.inProcessRead(sgm, PROJECTS, PER_PROJECT);
    Call inProcessStore = Callers.inProcessStore(sgm, run);
    for (Call call : List.of(noop, read, store, inProcessRead, inProcessStore)) {
      Callers.run(Thread.ofPlatform(), call, 8, warmup / 5, sequence, null);
    }
    System.out.printf(
        Locale.ROOT, "gRPC on loopback, %d s per run, durable embedded store%n", seconds);
    System.out.printf(
        Locale.ROOT,
        "%-6s %-8s %12s %9s %9s %14s %8s %14s %11s%n",
        "op",
        "callers",
        "calls/s",
        "p50 ms",
        "p99 ms",
        "no-op calls/s",
        "ratio",
        "in-process/s",
        "vs in-proc");
    for (int callers : new int[] {1, 8, 64}) {
      Load baseline = Callers.load(noop, callers, seconds, sequence);
      for (String name : List.of("read", "store")) {
        boolean reads = name.equals("read");
        Load measured = Callers.load(reads ? read : store, callers, seconds, sequence);
        Load inProcess =
            Callers.loadInProcess(
                reads ? inProcessRead : inProcessStore, callers, seconds, sequence);
        System.out.printf(
            Locale.ROOT,
            "%-6s %-8d %12.0f %9.3f %9.3f %14.0f %7.2fx %14.0f %10.2fx%n",
            name,
            callers,
            measured.callsPerSecond(),
            measured.p50Millis(),
            measured.p99Millis(),
            baseline.callsPerSecond(),
            measured.callsPerSecond() / baseline.callsPerSecond(),
            inProcess.callsPerSecond(),
            measured.callsPerSecond() / inProcess.callsPerSecond());
      }
    }
    System.out.println(
        "targets: read >= 0.6x, store >= 0.5x of the no-op RPC (\"ratio\"); \"vs in-proc\""
            + " compares with the same calls made in process, without a transport");
  }

  /** A read of a preloaded record at random. */
  private static Call read(MemoryGrpc.MemoryBlockingStub memory) {
    return n -> {
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
  }

  /** A store of new record {@code n} of this run. */
  private static Call store(MemoryGrpc.MemoryBlockingStub memory, String run) {
    return n ->
        memory.store(
            StoreRequest.newBuilder()
                .setRecord(
                    Record.newBuilder()
                        .setId("w" + run + "-" + n)
                        .setType("note")
                        .addScope(ScopeEntry.newBuilder().setKey("project").setValue("load"))
                        .setContent("a record written under load")
                        .setProvenance(Provenance.newBuilder().setAgent("bench")))
                .build());
  }
}
