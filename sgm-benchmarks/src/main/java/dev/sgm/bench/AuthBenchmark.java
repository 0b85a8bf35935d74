package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmClient;
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
 * that neither gets the cold start or the later, hotter JIT; the figures are the medians of the
 * rounds. With it on, every call also writes its audit line (to a file). The target is at most 10%
 * fewer calls per second with it on.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-auth} ({@code -Dsgm.bench.seconds}, {@code
 * -Dsgm.bench.rounds}, {@code -Dsgm.bench.warmup} in seconds).
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
    int rounds = Integer.getInteger("sgm.bench.rounds", 3);
    int warmup = Integer.getInteger("sgm.bench.warmup", 40);
    List<String> transports = List.of("http", "grpc");
    List<String> operations = List.of("read", "store");
    // rows: "http read" -> [auth off samples, auth on samples]
    Map<String, List<List<Double>>> rows = new LinkedHashMap<>();
    AtomicLong sequence = new AtomicLong();
    String run = Long.toString(System.nanoTime(), 36);
    try (Server off = start(false);
        Server on = start(true)) {
      Server[] servers = {off, on};
      for (Server server : servers) {
        for (String transport : transports) {
          for (String op : operations) {
            Callers.run(
                Thread.ofPlatform(),
                call(server, transport, op, run),
                CALLERS,
                Math.max(1, warmup / 4),
                sequence,
                null);
          }
        }
      }
      for (int round = 0; round < rounds; round++) {
        for (String transport : transports) {
          for (String op : operations) {
            for (int i = 0; i < 2; i++) {
              int which = round % 2 == 0 ? i : 1 - i;
              Callers.Load load =
                  Callers.load(
                      call(servers[which], transport, op, run), CALLERS, seconds, sequence);
              rows.computeIfAbsent(
                      transport + " " + op, k -> List.of(new ArrayList<>(), new ArrayList<>()))
                  .get(which)
                  .add(load.callsPerSecond());
            }
          }
        }
        System.out.printf(Locale.ROOT, "round %d of %d done%n", round + 1, rounds);
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%d callers, %d rounds of %d s each way, alternating, durable embedded store%n"
            + "%-12s %14s %14s %8s   %s%n",
        CALLERS,
        rounds,
        seconds,
        "",
        "auth off /s",
        "auth on /s",
        "cost",
        "rounds (off | on)");
    for (Map.Entry<String, List<List<Double>>> row : rows.entrySet()) {
      double off = median(row.getValue().get(0));
      double on = median(row.getValue().get(1));
      System.out.printf(
          Locale.ROOT,
          "%-12s %14.0f %14.0f %7.1f%%   %s | %s%n",
          row.getKey(),
          off,
          on,
          100 * (off - on) / off,
          rounded(row.getValue().get(0)),
          rounded(row.getValue().get(1)));
    }
    System.out.println("target: auth on costs at most 10% of calls per second");
  }

  private static Callers.Call call(Server server, String transport, String op, String run) {
    SgmClient client = server.clients().get(transport);
    return op.equals("read")
        ? n -> client.call("read", readRequest())
        : n -> client.call("store", storeRequest(run + "-" + n));
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
    options.put("embedders.disabled", "bge-small-en");
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
