package dev.sgm.bench;

import dev.sgm.api.Caller;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmService;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Watch streams under load, on the durable embedded store: commit-to-delivery latency (p50, p99)
 * with 1,000 SSE watchers of the scope written to; store throughput with no watcher and with 1,000
 * idle watchers (of another scope); and the heap an idle watch holds on the server.
 *
 * <p>Latency is timed from just before the store call (an upper bound: the commit is inside it,
 * with the store's own work) and, for comparison, from its return (a lower bound), to the moment
 * the client's read of the event returns. The watchers are read by one selector thread ({@link
 * SseClients}); {@code -Dsgm.bench.client=threads} reads them with a virtual thread each, as
 * before, to show what that costs on two cores. Each event takes turns with one of {@link
 * BareSseServer}'s, sent to as many clients read the same way: that server writes each event to
 * every connection from one thread and does nothing else, the least any server could take on this
 * machine, measured beside SGM's since the machine's own speed moves both figures alike. Throughput
 * alternates rounds with and without the idle watchers (none, idle, idle, none, ... over an even
 * number of rounds a side), since the store's rate drifts as the data grows and a single before and
 * after would put that drift into the ratio.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-watch} ({@code -Dsgm.bench.watchers}, {@code
 * -Dsgm.bench.events}, {@code -Dsgm.bench.seconds} per round, {@code -Dsgm.bench.rounds} a side, 8;
 * {@code -Dsgm.bench.readers} client reader threads and {@code -Dsgm.bench.bare-writers} writer
 * threads of the bare server, 1 each, to see whether splitting either lowers the floor).
 */
public final class WatchBenchmark {
  private static final Caller CALLER = Caller.embedded();

  private WatchBenchmark() {}

  public static void main(String[] args) throws Exception {
    int watchers = Integer.getInteger("sgm.bench.watchers", 1000);
    int events = Integer.getInteger("sgm.bench.events", 300);
    int seconds = Integer.getInteger("sgm.bench.seconds", 6);
    // Per side, and even: the order then ends on a whole "none, idle, idle, none", so a steady
    // drift weighs on both sides alike (an odd count puts the idle rounds later on average).
    int rounds = Integer.getInteger("sgm.bench.rounds", 8);
    rounds += rounds % 2;
    boolean selector = !"threads".equals(System.getProperty("sgm.bench.client", "selector"));
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-watch-bench")) {
      Map<String, String> options =
          Map.of(
              ConfigLoader.DATA_DIR,
              scratch.path().resolve("data").toString(),
              "http.port",
              "0",
              "http.log-requests",
              "false",
              "transports.enabled",
              "http");
      try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
        SgmService service = sgm.service();
        URI url = null;
        for (Transport transport : sgm.startTransports()) {
          url = URI.create(transport.endpoints().get(0));
        }
        System.out.printf(
            Locale.ROOT,
            "watch benchmark: %d SSE watchers, %d events, clients read by %s%n",
            watchers,
            events,
            selector ? SseClients.readers() + " selector thread(s)" : "a virtual thread each");
        memoryPerIdleWatch(service, watchers);
        memoryPerIdleConnection(url, watchers, selector);
        throughput(service, seconds, "bench-warm");
        throughputBesideIdleWatchers(service, url, watchers, seconds, rounds, selector);
        latencyBesideTheFloor(service, url, watchers, events, selector);
      }
    }
  }

  /** Store throughput with no watcher and with {@code watchers} idle ones, in alternate rounds. */
  private static void throughputBesideIdleWatchers(
      SgmService service, URI url, int watchers, int seconds, int rounds, boolean selector)
      throws Exception {
    double none = 0;
    double idle = 0;
    StringBuilder figures = new StringBuilder();
    for (int round = 0; round < 2 * rounds; round++) {
      // none, idle, idle, none, none, idle, ...: a steady drift weighs on both sides alike.
      boolean withIdle = Measurement.secondSide(round);
      double rate;
      if (withIdle) {
        SseClients clients = SseClients.open(url, "bench-idle-watched", watchers, selector, null);
        try {
          rate = throughput(service, seconds, "bench-idle-" + round);
        } finally {
          clients.close();
        }
        idle += rate;
      } else {
        rate = throughput(service, seconds, "bench-none-" + round);
        none += rate;
      }
      figures.append(String.format(Locale.ROOT, " %s %.0f", withIdle ? "idle" : "none", rate));
    }
    none /= rounds;
    idle /= rounds;
    System.out.printf(
        Locale.ROOT,
        "store throughput: %.0f/s with no watcher, %.0f/s with %d idle SSE watchers (ratio"
            + " %.2f; rounds:%s)%n",
        none,
        idle,
        watchers,
        idle / none,
        figures);
  }

  /** Commit-to-delivery latency of SGM's watches, event by event in turn with the bare server's. */
  private static void latencyBesideTheFloor(
      SgmService service, URI url, int watchers, int events, boolean selector) throws Exception {
    try (BareSseServer bare = new BareSseServer()) {
      // The same clients and events, with no store and no HTTP server: one write per stream.
      // Taken in turns with SGM's, event by event, so that both meet the machine alike.
      Latency[] both =
          latency(
              watchers,
              events,
              selector,
              new Target(
                  url, "bench-latency", id -> service.store(CALLER, note("bench-latency", id))),
              new Target(bare.url(), "bench-bare", id -> bare.publish(bareFrame(id))));
      Latency sgmLatency = both[0];
      Latency floor = both[1];
      System.out.printf(
          Locale.ROOT,
          "commit-to-delivery with %d SSE watchers, from the store call: p50 %.2f ms, p99 %.2f"
              + " ms, max %.2f ms (%d of %d deliveries)%n",
          watchers,
          sgmLatency.p50(),
          sgmLatency.p99(),
          sgmLatency.max(),
          sgmLatency.delivered(),
          sgmLatency.expected());
      System.out.printf(
          Locale.ROOT,
          "  from the store call's return: p50 %.2f ms, p99 %.2f ms, max %.2f ms (%d delivered"
              + " before it returned)%n",
          sgmLatency.p50FromReturn(),
          sgmLatency.p99FromReturn(),
          sgmLatency.maxFromReturn(),
          sgmLatency.early());
      System.out.printf(
          Locale.ROOT,
          "the machine's floor, one write per connection from %d thread(s) (no store, no HTTP"
              + " server), its events in turn with SGM's: p50 %.2f ms, p99 %.2f ms, max %.2f ms"
              + " (%d of %d deliveries); SGM from the store call / floor: p50 %.2fx, p99"
              + " %.2fx%n",
          BareSseServer.writers(),
          floor.p50(),
          floor.p99(),
          floor.max(),
          floor.delivered(),
          floor.expected(),
          sgmLatency.p50() / floor.p50(),
          sgmLatency.p99() / floor.p99());
    }
  }

  private static StoreRequest note(String project, String id) {
    return StoreRequest.of(
        Json.parseObject(
            "{\"id\":\""
                + id
                + "\",\"type\":\"note\",\"scope\":{\"project\":\""
                + project
                + "\"},\"content\":\"benchmark note\",\"provenance\":{\"agent\":\"bench\"}}",
            "record"));
  }

  private static double throughput(SgmService service, int seconds, String project) {
    // Warm up, then one writer stores as fast as it can (each store durable before it returns).
    long end = System.nanoTime() + 2_000_000_000L;
    int i = 0;
    while (System.nanoTime() < end) {
      service.store(CALLER, note(project + "-warm", "w" + i++));
    }
    long started = System.nanoTime();
    end = started + seconds * 1_000_000_000L;
    int stored = 0;
    while (System.nanoTime() < end) {
      service.store(CALLER, note(project, "n" + stored++));
    }
    return stored / ((System.nanoTime() - started) / 1e9);
  }

  private static void memoryPerIdleWatch(SgmService service, int count) throws Exception {
    Runtime runtime = Runtime.getRuntime();
    long before = usedAfterGc(runtime);
    List<ChangeStream> streams = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      streams.add(service.watch(CALLER, ChangesRequest.of(Scope.of("project", "memory-" + i))));
    }
    long after = usedAfterGc(runtime);
    System.out.printf(
        Locale.ROOT,
        "heap per idle watch (engine side, without its connection): %.0f bytes%n",
        (after - before) / (double) count);
    streams.forEach(ChangeStream::close);
  }

  private static long usedAfterGc(Runtime runtime) throws InterruptedException {
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return runtime.totalMemory() - runtime.freeMemory();
  }

  /**
   * The heap of {@code count} idle SSE connections, both ends (the server's stream, its Jetty
   * connection, and the benchmark's client socket): an upper bound of what the server holds.
   */
  private static void memoryPerIdleConnection(URI url, int count, boolean selector)
      throws Exception {
    Runtime runtime = Runtime.getRuntime();
    long before = usedAfterGc(runtime);
    SseClients clients = SseClients.open(url, "memory-connections", count, selector, null);
    try {
      long after = usedAfterGc(runtime);
      System.out.printf(
          Locale.ROOT,
          "heap per idle SSE watcher (server and client ends of its connection together): %.0f"
              + " bytes%n",
          (after - before) / (double) count);
    } finally {
      clients.close();
    }
  }

  /** Makes one event that every watcher of the latency run is to receive. */
  @FunctionalInterface
  private interface Publisher {
    void publish(String id) throws Exception;
  }

  /** Delivery times of one latency run, in milliseconds. */
  private record Latency(
      double p50,
      double p99,
      double max,
      double p50FromReturn,
      double p99FromReturn,
      double maxFromReturn,
      int delivered,
      int expected,
      long early) {}

  /** Where the latency run's events come from: a server, its watched scope, and its publisher. */
  private record Target(URI url, String project, Publisher publisher) {}

  /**
   * Times {@code events} events of each target to {@code watchers} watchers of it, the targets
   * taking turns, 20 ms apart; each target's watchers are read by their own {@link SseClients}.
   */
  private static Latency[] latency(int watchers, int events, boolean selector, Target... targets)
      throws Exception {
    Delivery[] deliveries = new Delivery[targets.length];
    SseClients[] clients = new SseClients[targets.length];
    try {
      for (int t = 0; t < targets.length; t++) {
        deliveries[t] = new Delivery(watchers * events);
        clients[t] =
            SseClients.open(
                targets[t].url(), targets[t].project(), watchers, selector, deliveries[t]);
      }
      for (int i = 0; i < events; i++) {
        for (int t = 0; t < targets.length; t++) {
          String id = "e" + i;
          AtomicLongArray at = new AtomicLongArray(2);
          deliveries[t].stored.put(id, at);
          at.set(0, System.nanoTime());
          targets[t].publisher().publish(id);
          at.set(1, System.nanoTime());
          Thread.sleep(20);
        }
      }
      long deadline = System.nanoTime() + 30_000_000_000L;
      for (Delivery delivery : deliveries) {
        while (!delivery.complete() && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
      }
    } finally {
      for (SseClients c : clients) {
        if (c != null) {
          c.close();
        }
      }
    }
    Latency[] figures = new Latency[targets.length];
    for (int t = 0; t < targets.length; t++) {
      figures[t] = deliveries[t].figures();
    }
    return figures;
  }

  /** The arrival times of one target's events, from its publish call and from its return. */
  private static final class Delivery implements SseClients.Arrival {
    private final Map<String, AtomicLongArray> stored = new ConcurrentHashMap<>();
    private final long[] fromCall;
    private final long[] fromReturn;
    private final AtomicInteger taken = new AtomicInteger();
    private final AtomicLong early = new AtomicLong();

    Delivery(int expected) {
      fromCall = new long[expected];
      fromReturn = new long[expected];
    }

    @Override
    public void arrived(String id, long nanos) {
      AtomicLongArray at = stored.get(id);
      int slot = taken.getAndIncrement();
      if (at == null || slot >= fromCall.length) {
        return;
      }
      fromCall[slot] = Math.max(0, nanos - at.get(0));
      long returned = at.get(1);
      if (returned == 0) {
        // Delivered before the call even returned.
        early.incrementAndGet();
        fromReturn[slot] = 0;
      } else {
        fromReturn[slot] = Math.max(0, nanos - returned);
      }
    }

    boolean complete() {
      return taken.get() >= fromCall.length;
    }

    Latency figures() {
      int n = Math.min(taken.get(), fromCall.length);
      long[] call = Arrays.copyOf(fromCall, n);
      long[] ret = Arrays.copyOf(fromReturn, n);
      Arrays.sort(call);
      Arrays.sort(ret);
      return new Latency(
          call[n / 2] / 1e6,
          call[p99(n)] / 1e6,
          call[n - 1] / 1e6,
          ret[n / 2] / 1e6,
          ret[p99(n)] / 1e6,
          ret[n - 1] / 1e6,
          n,
          fromCall.length,
          early.get());
    }
  }

  /** An event frame as the watch transport writes it, for {@link BareSseServer}. */
  private static byte[] bareFrame(String id) {
    return ("id: "
            + id
            + "\ndata: {\"cursor\":\""
            + id
            + "\",\"kind\":\"stored\",\"id\":\""
            + id
            + "\",\"type\":\"note\",\"scope\":{\"project\":\"bench-bare\"},\"version\":1,"
            + "\"agent\":\"bench\",\"at\":\"2026-01-01T00:00:00.000000Z\"}\n\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static int p99(int n) {
    return (int) Math.min(n - 1, Math.ceil(n * 0.99) - 1);
  }
}
