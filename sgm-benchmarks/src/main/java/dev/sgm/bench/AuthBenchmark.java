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
 * with authentication off and the same server with it on (a token whose grants cover every scope
 * used), side by side, on the durable embedded store. The target is at most 10% fewer calls per
 * second with it on.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-auth}.
 */
public final class AuthBenchmark {
  private static final int PROJECTS = 10;
  private static final int PER_PROJECT = 1000;
  private static final int CALLERS = 16;

  private AuthBenchmark() {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.getInteger("sgm.bench.seconds", 5);
    int warmup = Integer.getInteger("sgm.bench.warmup", 20);
    Map<String, double[]> rows = new LinkedHashMap<>();
    for (boolean auth : new boolean[] {false, true}) {
      try (ScratchDirectory scratch = ScratchDirectory.create("sgm-auth-bench")) {
        Map<String, String> options = new LinkedHashMap<>();
        options.put(ConfigLoader.DATA_DIR, scratch.path().toString());
        options.put("http.port", "0");
        options.put("grpc.port", "0");
        options.put("http.log-requests", "false");
        options.put("transports.enabled", "http,grpc");
        options.put("auth.enabled", Boolean.toString(auth));
        try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
          Callers.preload(sgm, PROJECTS, PER_PROJECT);
          String token = null;
          if (auth) {
            List<Grants.Grant> grants = new ArrayList<>();
            for (int p = 0; p < PROJECTS; p++) {
              grants.add(Grants.Grant.parse("project=p" + p + ":read_write"));
            }
            grants.add(Grants.Grant.parse("project=load:read_write"));
            token =
                sgm.tokens()
                    .create("bench", grants, Set.of("bench"), Sensitivity.SECRET, null)
                    .token();
          }
          Map<String, String> urls = new LinkedHashMap<>();
          for (Transport transport : sgm.startTransports()) {
            if (!transport.endpoints().isEmpty()) {
              String url = transport.endpoints().get(0);
              urls.put(url.startsWith("grpc") ? "grpc" : "http", url);
            }
          }
          SgmHttpClient http = new SgmHttpClient(urls.get("http"), Duration.ofSeconds(30), token);
          try (SgmGrpcClient grpc =
              new SgmGrpcClient(urls.get("grpc"), Duration.ofSeconds(30), token)) {
            AtomicLong sequence = new AtomicLong();
            String run = Long.toString(System.nanoTime(), 36);
            for (Map.Entry<String, SgmClient> client :
                Map.<String, SgmClient>of("http", http, "grpc", grpc).entrySet()) {
              Callers.Call read = n -> client.getValue().call("read", readRequest());
              Callers.Call store =
                  n -> client.getValue().call("store", storeRequest(run + "-" + n));
              Callers.run(Thread.ofPlatform(), read, CALLERS, warmup / 2, sequence, null);
              Callers.run(Thread.ofPlatform(), store, CALLERS, warmup / 2, sequence, null);
              for (String op : List.of("read", "store")) {
                Callers.Load load =
                    Callers.load(op.equals("read") ? read : store, CALLERS, seconds, sequence);
                rows.computeIfAbsent(client.getKey() + " " + op, k -> new double[2])[auth ? 1 : 0] =
                    load.callsPerSecond();
              }
            }
          }
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "%d callers, %d s per run, durable embedded store%n%-12s %14s %14s %8s%n",
        CALLERS,
        seconds,
        "",
        "auth off /s",
        "auth on /s",
        "cost");
    for (Map.Entry<String, double[]> row : rows.entrySet()) {
      double off = row.getValue()[0];
      double on = row.getValue()[1];
      System.out.printf(
          Locale.ROOT,
          "%-12s %14.0f %14.0f %7.1f%%%n",
          row.getKey(),
          off,
          on,
          100 * (off - on) / off);
    }
    System.out.println("target: auth on costs at most 10% of calls per second");
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
