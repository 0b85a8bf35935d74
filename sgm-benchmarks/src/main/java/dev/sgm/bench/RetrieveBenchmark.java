package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Embedder;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.transport.http.HttpTransport;
import dev.sgm.transport.http.SgmHttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Retrieve latency in process as the store grows: records spread over scopes of 100,000 (one scope
 * when there are fewer), each an agent's note that mentions a release, and a one-word query ({@code
 * "release"}) that matches every record of the largest scope. Prints p50 and p99 of {@code mode:
 * text}, and of {@code hybrid} and {@code semantic} when the server advertises them (an embedder is
 * active), at each size, each beside a structured retrieve of the same scope (no text, newest
 * first) as the peer, and the growth of p50 from the first size to the last. Each is measured in
 * process and over HTTP (the transport started on a free loopback port, one keep-alive connection),
 * where a structured retrieve costs what serving a page costs. Hybrid is measured twice: asking the
 * same word again (its embedding then comes from the cache of recent questions) and asking a new
 * question each time (the word and a word no record holds, so the model embeds every question).
 *
 * <p>Run: {@code ./sgm-benchmarks/run-retrieve [records ...]} (default 10000 1000000); {@code
 * -Dsgm.bench.ops} queries per mode (default 1000). {@code -Dsgm.bench.keep=DIR} keeps each size's
 * data directory under {@code DIR} and, on a later run, measures it again without seeding it again
 * (embedding a million records takes two to four hours here).
 *
 * <p>{@code -Dsgm.bench.vectors=sentences} gives each record the normalised sum of the model's
 * vectors of its clauses ({@link SentenceVectors}) instead of the model's vector of the whole text:
 * a million records are then embedded in minutes, and queries are still embedded by the model. The
 * figures it prints say so; the data directory is kept apart from the model's.
 */
public final class RetrieveBenchmark {
  private static final int SCOPE_SIZE = 100_000;
  private static final String QUERY = "release";

  /** Hybrid with a question the cache of recent questions has not seen: {@link #newQuestion}. */
  private static final String HYBRID_NEW = "hybrid, new questions";

  /**
   * The sequence numbers of the requests, counted over the whole run: each of {@link #HYBRID_NEW}'s
   * questions is new to the server whichever measurement (in process, over HTTP) asks it.
   */
  private static final AtomicInteger QUESTIONS = new AtomicInteger();

  private static final int LIMIT = 10;

  /** The peer: a retrieve of the same scope and page size without text (newest first). */
  private static final String STRUCTURED = "structured";

  private static final Caller CALLER = Caller.embedded();

  private RetrieveBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<Integer> sizes =
        args.length == 0
            ? List.of(10_000, 1_000_000)
            : Arrays.stream(args).map(a -> Integer.parseInt(a.replace("_", ""))).toList();
    int ops = Integer.getInteger("sgm.bench.ops", 1000);
    List<Map<String, Measurement.Result>> runs = new ArrayList<>();
    for (int size : sizes) {
      runs.add(run(size, ops));
    }
    System.out.println();
    System.out.println(
        "targets: text p50 <= 5 ms, p99 <= 20 ms; hybrid p50 <= 15 ms (at 1,000,000 records);"
            + " growth of p50 <= 3x");
    if (sizes.size() > 1) {
      Map<String, Measurement.Result> first = runs.get(0);
      Map<String, Measurement.Result> last = runs.get(runs.size() - 1);
      for (String mode : first.keySet()) {
        if (!last.containsKey(mode)) {
          System.out.printf(
              Locale.ROOT,
              "growth of p50 from %,d to %,d records, %s: n/a (no figure at %,d)%n",
              sizes.get(0),
              sizes.get(sizes.size() - 1),
              mode,
              sizes.get(sizes.size() - 1));
        } else {
          System.out.printf(
              Locale.ROOT,
              "growth of p50 from %,d to %,d records, %s: %.2fx%n",
              sizes.get(0),
              sizes.get(sizes.size() - 1),
              mode,
              last.get(mode).p50Millis() / first.get(mode).p50Millis());
        }
      }
    }
  }

  private static Map<String, Measurement.Result> run(int records, int ops) throws Exception {
    int scopes = (records + SCOPE_SIZE - 1) / SCOPE_SIZE;
    System.out.printf(
        Locale.ROOT,
        "%n%,d records in %d scope(s) of up to %,d; query \"%s\" matches every record of scope p0%n",
        records,
        scopes,
        SCOPE_SIZE,
        QUERY);
    String keep = System.getProperty("sgm.bench.keep");
    boolean clauseSums = "sentences".equals(System.getProperty("sgm.bench.vectors"));
    Map<String, String> options = new LinkedHashMap<>();
    options.put("transports.enabled", "http");
    options.put("http.port", "0");
    options.put("http.log-requests", "false");
    if (clauseSums) {
      System.out.println(
          "  record vectors: sums of the model's clause vectors (-Dsgm.bench.vectors=sentences),"
              + " not the model's vector of each whole record; queries embedded by the model");
      options.put("embedders.enabled", SentenceVectors.NAME);
    }
    try (ScratchDirectory scratch =
            keep == null
                ? ScratchDirectory.create("sgm-retrieve-bench")
                : ScratchDirectory.kept(
                    Path.of(keep, "records-" + records + (clauseSums ? "-sentences" : "")));
        // The environment is read too, so SGM_EMBEDDERS_DISABLED and the like apply.
        SgmRuntime sgm = open(scratch.path(), options)) {
      int port = ((HttpTransport) sgm.startTransports().get(0)).port();
      JsonNode retrieval = retrieval(sgm);
      List<String> modes = new ArrayList<>();
      retrieval.path("modes").forEach(m -> modes.add(m.asText()));
      System.out.println(
          retrieval.isMissingNode()
              ? "  discovery has no \"retrieval\" object: no retrieve modes advertised"
              : "  retrieval: " + Json.write(retrieval));
      // Beside the data directory, not in it, which is the server's own.
      Path seeded = scratch.path().resolveSibling(scratch.path().getFileName() + ".seeded");
      if (Files.exists(seeded)) {
        System.out.println("  measuring the records seeded by an earlier run in " + scratch.path());
      } else {
        seed(sgm, records);
        if (keep != null) {
          Files.writeString(seeded, records + "\n");
        }
      }
      List<String> measured = new ArrayList<>(List.of(STRUCTURED));
      if (modes.contains("text")) {
        measured.add("text");
      } else {
        System.out.println("  mode text: n/a (not advertised); measuring retrieve without a mode");
        measured.add("default");
      }
      if (modes.contains("hybrid")) {
        awaitSemanticIndex(sgm);
        measured.add("hybrid");
        measured.add(HYBRID_NEW);
        // Hybrid is the semantic search and a lexical one fused: this says which part costs what.
        if (modes.contains("semantic")) {
          measured.add("semantic");
        }
      } else {
        System.out.println("  mode hybrid: n/a (not advertised: no embedder active)");
      }
      Map<String, Measurement.Result> inProcess = new LinkedHashMap<>();
      Map<String, Measurement.Result> overHttp = new LinkedHashMap<>();
      try (SgmHttpClient remote = new SgmHttpClient("http://127.0.0.1:" + port)) {
        SgmClient local = (operation, request) -> sgm.service().invoke(CALLER, operation, request);
        System.out.println("  in process:");
        for (String mode : measured) {
          measure(local, mode, ops).ifPresent(r -> inProcess.put(mode, r));
        }
        System.out.println("  over HTTP (one keep-alive connection on loopback):");
        for (String mode : measured) {
          measure(remote, mode, ops).ifPresent(r -> overHttp.put(mode, r));
        }
      }
      printRatios("in process", inProcess);
      printRatios("over HTTP", overHttp);
      if (overHttp.containsKey(HYBRID_NEW) && overHttp.containsKey("text")) {
        // What a new question cannot cost less than: the words' search and one embedding.
        Measurement.Result model = embedAlone(ops);
        double floor = overHttp.get("text").p50Millis() + model.p50Millis();
        System.out.printf(
            Locale.ROOT,
            "  over HTTP, hybrid, new questions / (text + the model alone): p50 %.2fx"
                + " (%.3f ms against %.3f + %.3f ms)%n",
            overHttp.get(HYBRID_NEW).p50Millis() / floor,
            overHttp.get(HYBRID_NEW).p50Millis(),
            overHttp.get("text").p50Millis(),
            model.p50Millis());
      }
      System.out.println(
          "  embeddings of questions: "
              + Json.write(retrieval(sgm).path("index").path("query_cache"))
              + " (hits: questions asked again)");
      return inProcess;
    }
  }

  private static SgmRuntime open(Path data, Map<String, String> options) {
    Map<String, String> config = new LinkedHashMap<>(options);
    config.put(ConfigLoader.DATA_DIR, data.toString());
    return SgmRuntime.open(ConfigLoader.load(config));
  }

  /** Stores the records with store_batch, scope p0 first, printing progress. */
  private static void seed(SgmRuntime sgm, int records) {
    AgentNotes notes = new AgentNotes(42);
    long t0 = System.nanoTime();
    int step = Math.max(BatchStoreRequest.MAX_RECORDS, records / 10);
    List<JsonNode> batch = new ArrayList<>();
    for (int i = 0; i < records; i++) {
      ObjectNode r = Json.object();
      r.put("id", "n" + i);
      r.put("type", "note");
      r.putObject("scope").put("project", "p" + i / SCOPE_SIZE);
      r.put("content", "For the " + notes.version() + " release: " + notes.next());
      r.putObject("provenance").put("agent", "bench");
      batch.add(r);
      if (batch.size() == BatchStoreRequest.MAX_RECORDS || i == records - 1) {
        sgm.service().storeBatch(CALLER, new BatchStoreRequest(batch, false));
        batch = new ArrayList<>();
        if ((i + 1) % step == 0 || i == records - 1) {
          double seconds = (System.nanoTime() - t0) / 1e9;
          System.out.printf(
              Locale.ROOT,
              "  seeded %,d of %,d records in %.0f s (%,.0f records/s)%n",
              i + 1,
              records,
              seconds,
              (i + 1) / seconds);
        }
      }
    }
  }

  /**
   * The embedding model alone, as the server's plugin makes it, embedding the new questions one at
   * a time (beside the server's own instance, which is idle by then).
   */
  private static Measurement.Result embedAlone(int ops) throws Exception {
    EmbedderProvider provider = EmbedBenchmark.modelProvider(ConfigLoader.load(Map.of()));
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-retrieve-bench-model");
        Embedder embedder = provider.create(Config.of(Map.of()), scratch::path)) {
      // Past the sequence numbers the measurements used, so these questions are new too.
      int[] sequence = {QUESTIONS.get() + 1};
      Measurement.Result result =
          Measurement.measure(
              "the model alone, new questions",
              ops,
              key -> embedder.embedQuestion(newQuestion(key)),
              sequence);
      result.print();
      return result;
    }
  }

  /** The request of {@code mode}; {@code sequence} makes each of {@link #HYBRID_NEW}'s new. */
  private static ObjectNode request(String mode, int sequence) {
    ObjectNode q = Json.object();
    q.putObject("scope").put("project", "p0");
    q.put("limit", LIMIT);
    if (STRUCTURED.equals(mode)) {
      return q;
    }
    if (HYBRID_NEW.equals(mode)) {
      q.put("text", newQuestion(sequence));
      q.put("mode", "hybrid");
      return q;
    }
    q.put("text", QUERY);
    if (!"default".equals(mode)) {
      q.put("mode", mode);
    }
    return q;
  }

  /**
   * The query's word and a made-up word no record holds ("release qbc"), different for each {@code
   * sequence}: the words find what the query finds, and the model has not embedded the question.
   */
  private static String newQuestion(int sequence) {
    StringBuilder word = new StringBuilder("q");
    for (int n = sequence; n > 0 || word.length() < 3; n /= 26) {
      word.append((char) ('a' + n % 26));
    }
    return QUERY + " " + word;
  }

  /** Each measured mode's p50 against the structured retrieve's, measured the same way. */
  private static void printRatios(String how, Map<String, Measurement.Result> results) {
    Measurement.Result structured = results.get(STRUCTURED);
    for (Map.Entry<String, Measurement.Result> e : results.entrySet()) {
      if (structured != null && !e.getKey().equals(STRUCTURED)) {
        System.out.printf(
            Locale.ROOT,
            "  %s, %s / structured retrieve: p50 %.2fx%s%n",
            how,
            e.getKey(),
            e.getValue().p50Millis() / structured.p50Millis(),
            e.getKey().startsWith("hybrid") ? " (target <= 3x)" : "");
      }
    }
  }

  /** The query's latency in {@code mode}; empty, with the reason printed, when it fails. */
  private static Optional<Measurement.Result> measure(SgmClient client, String mode, int ops) {
    String name =
        "default".equals(mode)
            ? "retrieve, no mode"
            : STRUCTURED.equals(mode) ? "retrieve, no text" : "retrieve, " + mode;
    JsonNode first;
    try {
      first = client.call("retrieve", request(mode, QUESTIONS.getAndIncrement()));
    } catch (SgmException e) {
      System.out.println("  " + name + ": failed: " + e.code().wireName() + ": " + e.getMessage());
      return Optional.empty();
    }
    if (first.path("records").size() == 0) {
      throw new IllegalStateException("the query found nothing: " + Json.write(first));
    }
    // Enough calls for the JIT to compile the query path before it is timed.
    for (int i = 0; i < Math.min(200, ops); i++) {
      client.call("retrieve", request(mode, QUESTIONS.getAndIncrement()));
    }
    long[] nanos = new long[ops];
    long start = System.nanoTime();
    for (int i = 0; i < ops; i++) {
      ObjectNode request = request(mode, QUESTIONS.getAndIncrement());
      long t0 = System.nanoTime();
      client.call("retrieve", request);
      nanos[i] = System.nanoTime() - t0;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Arrays.sort(nanos);
    Measurement.Result result = new Measurement.Result(name, ops, seconds, nanos);
    result.print();
    System.out.printf(
        Locale.ROOT,
        "    limit %d: %d records returned, total %s%n",
        LIMIT,
        first.path("records").size(),
        first.path("total").isMissingNode() ? "not given" : first.path("total").asText());
    return Optional.of(result);
  }

  /**
   * Waits (up to {@code sgm.bench.semantic.wait} seconds) while the server reports lag, printing
   * progress each minute. It asks discovery, which is no search: a search a second would count as a
   * caller coming and hold the embedding back to a share of its pace, and a million records would
   * then take hours. One search confirms at the end, as its response reports the lag too.
   */
  private static void awaitSemanticIndex(SgmRuntime sgm) throws InterruptedException {
    long deadline =
        System.nanoTime() + Long.getLong("sgm.bench.semantic.wait", 600) * 1_000_000_000L;
    long start = System.nanoTime();
    long reported = start;
    while (true) {
      long now = System.nanoTime();
      boolean late = now > deadline;
      Map<String, JsonNode> reports = SemanticLag.reports("retrieval", retrieval(sgm));
      Optional<Boolean> caughtUp = SemanticLag.caughtUp(reports);
      if (caughtUp.orElse(true) || late) {
        reports.putAll(
            SemanticLag.reports(
                "retrieve", sgm.service().invoke(CALLER, "retrieve", request("semantic", 0))));
        caughtUp = SemanticLag.caughtUp(reports);
        if (caughtUp.isEmpty()) {
          System.out.println(
              "  the server does not report how far its semantic index lags: could not tell"
                  + " whether it has caught up");
          return;
        }
        if (caughtUp.get() || late) {
          System.out.printf(
              Locale.ROOT,
              "  semantic index %s after %.0f s: %s%n",
              caughtUp.get() ? "caught up" : "still behind",
              (now - start) / 1e9,
              reports);
          return;
        }
      }
      if (now - reported > 60_000_000_000L) {
        reported = now;
        System.out.printf(Locale.ROOT, "  after %.0f s: %s%n", (now - start) / 1e9, reports);
      }
      Thread.sleep(1000);
    }
  }

  private static JsonNode retrieval(SgmRuntime sgm) {
    return sgm.service().invoke(CALLER, "discover", Json.object()).path("retrieval");
  }
}
