package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.transport.grpc.SgmGrpcClient;
import dev.sgm.transport.http.SgmHttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What authentication costs: reads and stores over HTTP and gRPC at 16 callers against a server
 * with authentication off and a second one with it on (a token whose grants cover every scope
 * used), both running in this JVM on the durable embedded store, with no embedder. Both are warmed
 * up first, then measured in alternating rounds (off first in odd rounds, on first in even ones) so
 * that neither gets the cold start or the later, hotter JIT. With it on, every call also writes its
 * audit line (to a file). The target is at most 10% fewer calls per second with it on.
 *
 * <p>Two servers measured one after the other drift together (JIT, garbage collection, the store
 * growing, other work on the machine), and that drift is larger than what is measured, so each
 * round's cost compares the two measurements of that round, taken back to back; the cost judged is
 * the median of the rounds' costs, printed with their spread (lowest to highest) beside the median
 * calls per second of each server and every round's figures. Between measurements the work one left
 * behind (indexing the records it stored, its garbage) is finished first, so that it does not slow
 * down the next one, of either server. And since one server of a pair can stay faster than its twin
 * for as long as it runs (a run with both off showed up to 30% on stores), the rounds are spread
 * over several fresh pairs, started in the other order in every other pair.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-auth}; {@code SGM_BENCH_JAVA_OPTS} may set {@code
 * -Dsgm.bench.sessions} (pairs of servers), {@code -Dsgm.bench.rounds} (per pair), {@code
 * -Dsgm.bench.seconds} and {@code -Dsgm.bench.warmup} (in seconds), and {@code
 * -Dsgm.bench.control=true}, which runs both servers with auth off and so shows what the benchmark
 * itself makes of two equal servers.
 */
public final class AuthBenchmark {
  private static final int PROJECTS = 10;
  private static final int PER_PROJECT = 1000;
  private static final int CALLERS = 16;

  private AuthBenchmark() {}

  /** One server, with its HTTP and gRPC clients. */
  private record Server(
      SgmRuntime runtime, ScratchDirectory scratch, Map<String, SgmClient> clients)
      implements AutoCloseable {
    @Override
    public void close() {
      if (clients.get("grpc") instanceof SgmGrpcClient grpc) {
        grpc.close();
      }
      runtime.close();
      scratch.close();
    }
  }

  public static void main(String[] args) throws Exception {
    int seconds = Integer.getInteger("sgm.bench.seconds", 4);
    int sessions = Integer.getInteger("sgm.bench.sessions", 3);
    int rounds = Integer.getInteger("sgm.bench.rounds", 4);
    int warmup = Integer.getInteger("sgm.bench.warmup", 40);
    // rows: "http read" -> [auth off samples, auth on samples]
    Map<String, List<List<Double>>> rows = new LinkedHashMap<>();
    AtomicLong sequence = new AtomicLong();
    String run = Long.toString(System.nanoTime(), 36);
    // A check of the benchmark itself: with both servers off, any "cost" is the benchmark's bias.
    boolean control = Boolean.getBoolean("sgm.bench.control");
    for (int session = 0; session < sessions; session++) {
      // Each session starts a fresh pair, the other one first in every other session: one server
      // of a pair can be faster than its twin for as long as it runs, whatever it is asked.
      boolean offFirst = session % 2 == 0;
      try (Server first = start(offFirst ? false : !control);
          Server second = start(offFirst ? !control : false)) {
        Server[] servers = offFirst ? new Server[] {first, second} : new Server[] {second, first};
        // The JIT is warm after the first session; a fresh pair's caches still are not.
        measure(
            servers,
            session == 0 ? warmup : Math.max(4, warmup / 4),
            0,
            seconds,
            rows,
            run,
            sequence);
        measure(servers, 0, rounds, seconds, rows, run, sequence);
      }
      System.out.printf(Locale.ROOT, "session %d of %d done%n", session + 1, sessions);
    }
    rounds *= sessions;
    System.out.printf(
        Locale.ROOT,
        "%d callers, %d rounds of %d s each way (%d fresh pairs of servers), alternating,"
            + " durable embedded store%n"
            + "%-12s %12s %12s %8s %17s   %s%n",
        CALLERS,
        rounds,
        seconds,
        sessions,
        "",
        "auth off /s",
        "auth on /s",
        "cost",
        "rounds' costs",
        "rounds (off | on)");
    for (Map.Entry<String, List<List<Double>>> row : rows.entrySet()) {
      List<Double> off = row.getValue().get(0);
      List<Double> on = row.getValue().get(1);
      List<Double> costs = new ArrayList<>();
      for (int i = 0; i < off.size(); i++) {
        costs.add(100 * (off.get(i) - on.get(i)) / off.get(i));
      }
      System.out.printf(
          Locale.ROOT,
          "%-12s %12.0f %12.0f %7.1f%% %6.1f%% .. %5.1f%%   %s | %s%n",
          row.getKey(),
          median(off),
          median(on),
          median(costs),
          costs.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
          costs.stream().mapToDouble(Double::doubleValue).max().orElseThrow(),
          rounded(off),
          rounded(on));
    }
    System.out.println(
        "cost: the median of the rounds' costs (each round's off and on measured back to back)");
    System.out.printf(Locale.ROOT, "failed calls (counted as calls): %d%n", FAILED.get());
    if (control) {
      System.out.println(
          "CONTROL RUN: both servers had auth off; the costs above are bias and noise");
    }
    System.out.println("target: auth on costs at most 10% of calls per second");
  }

  /**
   * Calls that failed: a caller goes on after one rather than ending, which would leave its round
   * with fewer callers than the other server's.
   */
  private static final AtomicLong FAILED = new AtomicLong();

  /**
   * Warms both servers up for {@code warmup} seconds in all (when not zero), then measures {@code
   * rounds} alternating rounds into {@code rows}.
   */
  private static void measure(
      Server[] servers,
      int warmup,
      int rounds,
      int seconds,
      Map<String, List<List<Double>>> rows,
      String run,
      AtomicLong sequence)
      throws InterruptedException {
    List<String> transports = List.of("http", "grpc");
    List<String> operations = List.of("read", "store");
    if (warmup > 0) {
      for (Server server : servers) {
        for (String transport : transports) {
          for (String op : operations) {
            Callers.run(
                Thread.ofPlatform(),
                call(server, transport, op, run),
                CALLERS,
                Math.max(1, warmup / 8),
                sequence,
                null);
          }
        }
      }
      settle(servers);
    }
    for (int round = 0; round < rounds; round++) {
      for (String transport : transports) {
        for (String op : operations) {
          for (int i = 0; i < 2; i++) {
            int which = round % 2 == 0 ? i : 1 - i;
            Callers.Load load =
                Callers.load(call(servers[which], transport, op, run), CALLERS, seconds, sequence);
            settle(servers);
            rows.computeIfAbsent(
                    transport + " " + op, k -> List.of(new ArrayList<>(), new ArrayList<>()))
                .get(which)
                .add(load.callsPerSecond());
          }
        }
      }
    }
  }

  /**
   * Lets the work a measurement left behind finish before the next one starts, so that it is not
   * counted against whichever server is measured next: the search index's follower catches up with
   * the records just stored (a text retrieve waits for it), and the garbage of either server is
   * collected.
   */
  private static void settle(Server[] servers) throws InterruptedException {
    JsonNode caughtUp =
        Json.parse("{\"scope\":{\"project\":\"load\"},\"text\":\"record\",\"limit\":1}");
    for (Server server : servers) {
      long deadline = System.nanoTime() + 120_000_000_000L;
      while (true) {
        try {
          server.runtime().service().invoke(Caller.embedded(), "retrieve", caughtUp);
          break;
        } catch (SgmException e) {
          if (e.code() != ErrorCode.UNAVAILABLE || System.nanoTime() > deadline) {
            throw e;
          }
        }
      }
    }
    System.gc();
    Thread.sleep(200);
  }

  private static Callers.Call call(Server server, String transport, String op, String run) {
    SgmClient client = server.clients().get(transport);
    Callers.Call call =
        op.equals("read")
            ? n -> client.call("read", readRequest())
            : n -> client.call("store", storeRequest(run + "-" + n));
    return n -> {
      try {
        call.run(n);
      } catch (RuntimeException e) {
        if (FAILED.getAndIncrement() == 0) {
          System.err.println("a call failed (the first is shown, all are counted): " + e);
        }
      }
    };
  }

  private static Server start(boolean auth) throws Exception {
    ScratchDirectory scratch = ScratchDirectory.create("sgm-auth-bench");
    Map<String, String> options = new LinkedHashMap<>();
    options.put(ConfigLoader.DATA_DIR, scratch.path().toString());
    options.put("http.port", "0");
    options.put("grpc.port", "0");
    options.put("http.log-requests", "false");
    options.put("transports.enabled", "http,grpc");
    options.put("auth.enabled", Boolean.toString(auth));
    // Records are embedded in the background after their stores return; that work would land in
    // whichever rounds follow (of either server) and blur what authentication costs.
    options.put("embedders.disabled", "bge-e5-small,bge-small-en");
    // As a team server keeps it: the audit trail in a file, not on a terminal.
    options.put("audit.file", scratch.path().resolve("audit.log").toString());
    SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()));
    Callers.preload(sgm, PROJECTS, PER_PROJECT);
    String token = null;
    if (auth) {
      List<Grants.Grant> grants = new ArrayList<>();
      for (int p = 0; p < PROJECTS; p++) {
        grants.add(Grants.Grant.parse("project=p" + p + ":read_write"));
      }
      grants.add(Grants.Grant.parse("project=load:read_write"));
      token =
          sgm.tokens().create("bench", grants, Set.of("bench"), Sensitivity.SECRET, null).token();
    }
    Map<String, SgmClient> clients = new LinkedHashMap<>();
    for (Transport transport : sgm.startTransports()) {
      if (!transport.endpoints().isEmpty()) {
        String url = transport.endpoints().get(0);
        clients.put(
            url.startsWith("grpc") ? "grpc" : "http",
            url.startsWith("grpc")
                ? new SgmGrpcClient(url, Duration.ofSeconds(30), token)
                : new SgmHttpClient(url, Duration.ofSeconds(30), token));
      }
    }
    return new Server(sgm, scratch, clients);
  }

  private static double median(List<Double> samples) {
    List<Double> sorted = samples.stream().sorted().toList();
    int n = sorted.size();
    return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
  }

  private static String rounded(List<Double> samples) {
    return String.join(
        " ", samples.stream().map(v -> String.format(Locale.ROOT, "%.0f", v)).toList());
  }

  private static JsonNode readRequest() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return Json.parse(
        "{\"scope\":{\"project\":\"p"
            + random.nextInt(PROJECTS)
            + "\"},\"id\":\"r"
            + random.nextInt(PER_PROJECT)
            + "\"}");
  }

  private static JsonNode storeRequest(String id) {
    return Json.parse(
        "{\"record\":{\"id\":\"w"
            + id
            + "\",\"type\":\"note\",\"scope\":{\"project\":\"load\"},"
            + "\"content\":\"a record written under load\",\"provenance\":{\"agent\":\"bench\"}}}");
  }
}
