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
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Watch streams under load, on the durable embedded store: commit-to-delivery latency (p50, p99)
 * with 1,000 SSE watchers of the scope written to; store throughput with no watcher and with 1,000
 * idle watchers (of another scope); and the heap an idle watch holds on the server.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-watch} ({@code -Dsgm.bench.watchers}, {@code
 * -Dsgm.bench.events}, {@code -Dsgm.bench.seconds}).
 */
public final class WatchBenchmark {
  private static final Caller CALLER = Caller.embedded();

  private WatchBenchmark() {}

  public static void main(String[] args) throws Exception {
    int watchers = Integer.getInteger("sgm.bench.watchers", 1000);
    int events = Integer.getInteger("sgm.bench.events", 300);
    int seconds = Integer.getInteger("sgm.bench.seconds", 10);
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
            Locale.ROOT, "watch benchmark: %d SSE watchers, %d events%n", watchers, events);
        memoryPerIdleWatch(service, watchers);
        // Warmed up first, and measured on both sides of the watched run, so that neither side
        // gets the cold start.
        throughput(service, seconds, "bench-warm");
        double before = throughput(service, seconds, "bench-none");
        List<Socket> idle = connect(url, "bench-idle-watched", watchers, null);
        double withIdle = throughput(service, seconds, "bench-idle");
        for (Socket socket : idle) {
          socket.close();
        }
        double after = throughput(service, seconds, "bench-none-again");
        double none = (before + after) / 2;
        System.out.printf(
            Locale.ROOT,
            "store throughput: %.0f/s with no watcher (%.0f before, %.0f after), %.0f/s with %d idle"
                + " SSE watchers (ratio %.2f)%n",
            none,
            before,
            after,
            withIdle,
            watchers,
            withIdle / none);
        latency(service, url, watchers, events);
      }
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
   * Opens {@code count} SSE connections; each reader hands every event's id and arrival time on.
   */
  private static List<Socket> connect(URI url, String project, int count, Arrival arrival)
      throws Exception {
    List<Socket> sockets = new ArrayList<>();
    CountDownLatch ready = new CountDownLatch(count);
    byte[] request =
        ("GET /v1/watch?scope=project%3D" + project + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < count; i++) {
      Socket socket = new Socket(url.getHost(), url.getPort());
      sockets.add(socket);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      Thread.ofVirtual()
          .start(
              () -> {
                try (BufferedReader in =
                    new BufferedReader(
                        new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
                  for (String line = in.readLine(); line != null; line = in.readLine()) {
                    if (line.startsWith("event: ready")) {
                      ready.countDown();
                    } else if (arrival != null && line.startsWith("data: {\"cursor\"")) {
                      int at = line.indexOf("\"id\":\"");
                      if (at > 0) {
                        arrival.arrived(
                            line.substring(at + 6, line.indexOf('"', at + 6)), System.nanoTime());
                      }
                    }
                  }
                } catch (java.io.IOException e) {
                  // Closed by the benchmark.
                }
              });
    }
    ready.await();
    return sockets;
  }

  /** Where a reader reports that an event reached it. */
  @FunctionalInterface
  private interface Arrival {
    void arrived(String id, long nanos);
  }

  private static void latency(SgmService service, URI url, int watchers, int events)
      throws Exception {
    Map<String, Long> committed = new ConcurrentHashMap<>();
    long[] samples = new long[watchers * events];
    AtomicInteger taken = new AtomicInteger();
    AtomicLong early = new AtomicLong();
    List<Socket> sockets =
        connect(
            url,
            "bench-latency",
            watchers,
            (id, nanos) -> {
              Long at = committed.get(id);
              long latency;
              if (at == null) {
                // Delivered before the store call even returned: the commit came first.
                early.incrementAndGet();
                latency = 0;
              } else {
                latency = Math.max(0, nanos - at);
              }
              int slot = taken.getAndIncrement();
              if (slot < samples.length) {
                samples[slot] = latency;
              }
            });
    for (int i = 0; i < events; i++) {
      String id = "e" + i;
      service.store(CALLER, note("bench-latency", id));
      // Timed from when the store returned, so its commit is behind it: an upper bound of
      // commit-to-delivery that excludes the store's own work.
      committed.put(id, System.nanoTime());
      Thread.sleep(20);
    }
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (taken.get() < samples.length && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    int n = Math.min(taken.get(), samples.length);
    long[] sorted = Arrays.copyOf(samples, n);
    Arrays.sort(sorted);
    System.out.printf(
        Locale.ROOT,
        "commit-to-delivery with %d SSE watchers: p50 %.2f ms, p99 %.2f ms, max %.2f ms"
            + " (%d of %d deliveries; %d before the store call returned)%n",
        watchers,
        sorted[n / 2] / 1e6,
        sorted[(int) Math.min(n - 1, Math.ceil(n * 0.99) - 1)] / 1e6,
        sorted[n - 1] / 1e6,
        n,
        samples.length,
        early.get());
    for (Socket socket : sockets) {
      socket.close();
    }
  }
}
