package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.bench.Locomo.Conversation;
import dev.sgm.bench.Locomo.Question;
import dev.sgm.bench.Locomo.Turn;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.search.TextAnalysis;
import dev.sgm.transport.http.HttpTransport;
import dev.sgm.transport.http.SgmHttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Evidence recall on LoCoMo through the HTTP API, as {@code shared/data/locomo-dev/README.md}
 * defines it: every turn stored as one record with {@code store_batch}, one scope per conversation;
 * every question with evidence asked as {@code retrieve {scope, text: question, limit: 25, mode}}
 * for each mode the server advertises in discovery ({@code retrieval.modes}) and once without a
 * mode (the server's default). Prints R@5, R@10 and R@25 per mode (and per conversation with {@code
 * -v}), the questions asked, and the mean, p50 and p99 latency of a retrieve.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-recall [-v] [--url http://127.0.0.1:7410]}; without {@code
 * --url} it starts a server in process on the durable embedded store, on a free loopback port.
 */
public final class RecallBenchmark {
  private static final List<String> MODES = List.of("text", "semantic", "hybrid");
  private static final int LIMIT = 25;
  // Enough calls for the JIT to compile a mode's query path before its latency is timed.
  private static final int WARMUP = 50;
  private static final int UNREPORTED_POLLS = 5;
  private static final long MAX_WAIT_MILLIS = 30 * 60_000L;

  private final List<Conversation> conversations;
  private final boolean verbose;
  private final String run = Long.toString(System.currentTimeMillis(), 36);

  private RecallBenchmark(List<Conversation> conversations, boolean verbose) {
    this.conversations = conversations;
    this.verbose = verbose;
  }

  public static void main(String[] args) throws Exception {
    String url = null;
    Path data = Path.of("..", "shared", "data", "locomo-dev");
    boolean verbose = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--url" -> url = args[++i];
        case "--data" -> data = Path.of(args[++i]);
        case "-v", "--verbose" -> verbose = true;
        default ->
            throw new IllegalArgumentException(
                "unknown argument " + args[i] + "; usage: [-v] [--url URL] [--data DIR]");
      }
    }
    List<Conversation> conversations =
        Files.isDirectory(data) ? Locomo.read(data) : List.<Conversation>of();
    if (conversations.isEmpty()) {
      System.out.println(
          "recall benchmark skipped: no LoCoMo conversations (*.json) in "
              + data.toAbsolutePath().normalize()
              + " (the data set is read from ../shared/data/locomo-dev beside the project, never"
              + " copied into it)");
      return;
    }
    RecallBenchmark benchmark = new RecallBenchmark(conversations, verbose);
    if (url != null) {
      benchmark.run(new SgmHttpClient(url), url);
      return;
    }
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-recall-bench")) {
      Map<String, String> options =
          Map.of(
              ConfigLoader.DATA_DIR,
              scratch.path().toString(),
              "http.port",
              "0",
              "http.log-requests",
              "false",
              "transports.enabled",
              "http");
      // The environment is read too, so SGM_EMBEDDERS_DISABLED and the like apply as to a server.
      try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options))) {
        HttpTransport http = (HttpTransport) sgm.startTransports().get(0);
        String base = "http://127.0.0.1:" + http.port();
        benchmark.run(new SgmHttpClient(base), base + " (in process, durable embedded store)");
      }
    }
  }

  /** What one pass over every question measured. */
  private record Pass(
      String label,
      Map<String, Recall> byConversation,
      long[] sortedNanos,
      int answered,
      int errors) {
    Recall total() {
      Recall all = new Recall();
      byConversation.values().forEach(all::addAll);
      return all;
    }
  }

  private void run(SgmHttpClient client, String where) throws InterruptedException {
    JsonNode discovery = client.discovery();
    JsonNode retrieval = discovery.path("retrieval");
    List<String> advertised = new ArrayList<>();
    retrieval.path("modes").forEach(m -> advertised.add(m.asText()));
    String defaultMode = retrieval.path("default_mode").asText(null);
    System.out.println("server: " + where);
    System.out.println(
        retrieval.isMissingNode()
            ? "  discovery has no \"retrieval\" object: no retrieve modes advertised"
            : "  retrieval: " + Json.write(retrieval));

    Map<String, ObjectNode> scopes = store(client);
    List<Pass> passes = new ArrayList<>();
    List<String> embedded = new ArrayList<>();
    boolean awaited = false;
    for (String mode : MODES) {
      if (!advertised.contains(mode)) {
        passes.add(null);
        continue;
      }
      if (!mode.equals("text") && !awaited) {
        awaitSemanticIndex(client, scopes);
        awaited = true;
      }
      JsonNode before = queryCache(client);
      passes.add(ask(client, scopes, mode, mode));
      embedded.add(embeddedSince(client, before, mode));
    }
    if (defaultMode != null && !defaultMode.equals("text") && !awaited) {
      awaitSemanticIndex(client, scopes);
    }
    JsonNode before = queryCache(client);
    passes.add(
        ask(
            client,
            scopes,
            "default (" + (defaultMode == null ? "no mode advertised" : defaultMode) + ")",
            null));
    embedded.add(embeddedSince(client, before, "default"));
    print(passes);
    embedded.stream().filter(line -> line != null).forEach(System.out::println);
    unrelated(client, scopes, advertised);
    rightAfterStore(client, passes.get(passes.size() - 1));
  }

  /** The server's counts of questions embedded and found among recent ones, or a missing node. */
  private static JsonNode queryCache(SgmHttpClient client) {
    return client.discovery().path("retrieval").path("index").path("query_cache");
  }

  /**
   * How many of a mode's questions the model embedded and how many came from the cache of recent
   * questions (each mode asks the same questions, so those after the first reuse its embeddings,
   * and their latencies leave the model's time out); null when the server does not say.
   */
  private static String embeddedSince(SgmHttpClient client, JsonNode before, String mode) {
    JsonNode after = queryCache(client);
    if (before.isMissingNode() || after.isMissingNode()) {
      return null;
    }
    long misses = after.path("misses").asLong() - before.path("misses").asLong();
    long hits = after.path("hits").asLong() - before.path("hits").asLong();
    if (misses + hits == 0) {
      return null;
    }
    return String.format(
        Locale.ROOT,
        "  %s: %d questions embedded by the model, %d embeddings from the cache of recent questions",
        mode,
        misses,
        hits);
  }

  /**
   * Questions about nothing stored: each conversation is asked the other conversations' questions
   * that share no analysed word with any of its turns, in every mode; prints the share answered
   * with nothing (the target: at least 95% in every mode).
   */
  private void unrelated(SgmClient client, Map<String, ObjectNode> scopes, List<String> modes) {
    Map<String, List<String>> asked = new LinkedHashMap<>();
    for (Conversation c : conversations) {
      Set<String> vocabulary = new HashSet<>();
      c.turns().forEach(t -> vocabulary.addAll(TextAnalysis.terms(t.content())));
      List<String> questions = new ArrayList<>();
      for (Conversation other : conversations) {
        if (other != c) {
          for (Question q : other.questions()) {
            List<String> terms = TextAnalysis.terms(q.text());
            if (!terms.isEmpty() && terms.stream().noneMatch(vocabulary::contains)) {
              questions.add(q.text());
            }
          }
        }
      }
      asked.put(c.name(), questions);
    }
    int count = asked.values().stream().mapToInt(List::size).sum();
    System.out.printf(
        Locale.ROOT,
        "%nquestions about nothing stored (other conversations' questions sharing no word with the"
            + " one asked): %d%n",
        count);
    List<String> withDefault = new ArrayList<>(modes);
    withDefault.add(null);
    for (String mode : withDefault) {
      int empty = 0;
      int tuneEmpty = 0;
      int tuneCount = 0;
      for (Conversation c : conversations) {
        boolean tuning = tuning(c);
        for (String question : asked.get(c.name())) {
          boolean nothing =
              client
                  .call("retrieve", query(scopes.get(c.name()), question, LIMIT, mode))
                  .path("records")
                  .isEmpty();
          empty += nothing ? 1 : 0;
          if (tuning) {
            tuneCount++;
            tuneEmpty += nothing ? 1 : 0;
          }
        }
      }
      System.out.printf(
          Locale.ROOT,
          "  %-20s answered with nothing: %5.1f%%   (tuning conversations %5.1f%%, the others"
              + " %5.1f%%)%n",
          mode == null ? "default" : mode,
          100.0 * empty / Math.max(1, count),
          100.0 * tuneEmpty / Math.max(1, tuneCount),
          100.0 * (empty - tuneEmpty) / Math.max(1, count - tuneCount));
    }
  }

  /**
   * Recall right after store: every conversation stored again in a fresh scope and its questions
   * asked at once, in the server's default mode, against the settled figure.
   */
  private void rightAfterStore(SgmClient client, Pass settled) {
    Recall recall = new Recall();
    for (Conversation c : conversations) {
      ObjectNode scope = Json.object().put("project", "locomo-fresh-" + c.name() + "-" + run);
      store(client, c, scope);
      for (Question q : c.questions()) {
        List<String> ranked = new ArrayList<>();
        client
            .call("retrieve", query(scope, q.text(), LIMIT, null))
            .path("records")
            .forEach(r -> ranked.add(r.path("id").asText()));
        recall.add(ranked, q.evidence());
      }
    }
    Recall before = settled.total();
    System.out.printf(
        Locale.ROOT,
        "%ndefault mode right after store: R@5 %.1f, R@10 %.1f (settled %.1f, %.1f; target: within"
            + " 1 point)%n",
        recall.percent(0),
        recall.percent(1),
        before.percent(0),
        before.percent(1));
  }

  /**
   * Whether {@code c} is one of the two conversations that values were chosen on (the first two by
   * name); the figures of the others check that a choice holds on data it was not made on.
   */
  private boolean tuning(Conversation c) {
    return conversations.stream()
        .map(Conversation::name)
        .sorted()
        .limit(2)
        .anyMatch(c.name()::equals);
  }

  /** Stores every turn, one scope per conversation, in batches; returns the scopes by name. */
  private Map<String, ObjectNode> store(SgmClient client) {
    Map<String, ObjectNode> scopes = new LinkedHashMap<>();
    long t0 = System.nanoTime();
    int turns = 0;
    for (Conversation c : conversations) {
      // A fresh project per run, so that a long-lived server given with --url holds no old turns.
      ObjectNode scope = Json.object().put("project", "locomo-" + c.name() + "-" + run);
      scopes.put(c.name(), scope);
      store(client, c, scope);
      turns += c.turns().size();
    }
    System.out.printf(
        Locale.ROOT,
        "stored %,d turns of %d conversations with store_batch in %.1f s; %,d questions with"
            + " evidence%n",
        turns,
        conversations.size(),
        (System.nanoTime() - t0) / 1e9,
        conversations.stream().mapToInt(c -> c.questions().size()).sum());
    return scopes;
  }

  /** Stores every turn of {@code c} in {@code scope}, in batches. */
  private static void store(SgmClient client, Conversation c, ObjectNode scope) {
    for (int from = 0; from < c.turns().size(); from += BatchStoreRequest.MAX_RECORDS) {
      ObjectNode request = Json.object();
      ArrayNode records = request.putArray("records");
      for (Turn turn :
          c.turns()
              .subList(from, Math.min(c.turns().size(), from + BatchStoreRequest.MAX_RECORDS))) {
        ObjectNode r = records.addObject();
        r.put("id", turn.id());
        r.put("type", "note");
        r.set("scope", scope);
        r.put("content", turn.content());
        r.putObject("provenance").put("agent", "locomo");
      }
      client.call("store_batch", request);
    }
  }

  private static ObjectNode query(ObjectNode scope, String text, int limit, String mode) {
    ObjectNode q = Json.object();
    q.set("scope", scope);
    q.put("text", text);
    q.put("limit", limit);
    if (mode != null) {
      q.put("mode", mode);
    }
    return q;
  }

  /** Asks every question in {@code mode} (null: none, the server's default), timing each call. */
  private Pass ask(SgmClient client, Map<String, ObjectNode> scopes, String label, String mode) {
    List<Question> warmup =
        conversations.stream().flatMap(c -> c.questions().stream()).limit(WARMUP).toList();
    ObjectNode firstScope = scopes.values().iterator().next();
    for (Question q : warmup) {
      try {
        client.call("retrieve", query(firstScope, q.text(), LIMIT, mode));
      } catch (SgmException e) {
        // Counted in the timed pass below.
      }
    }
    Map<String, Recall> byConversation = new LinkedHashMap<>();
    List<Long> nanos = new ArrayList<>();
    int errors = 0;
    int answered = 0;
    String firstError = null;
    for (Conversation c : conversations) {
      Recall recall = new Recall();
      for (Question q : c.questions()) {
        List<String> ranked = new ArrayList<>();
        long t0 = System.nanoTime();
        try {
          JsonNode response =
              client.call("retrieve", query(scopes.get(c.name()), q.text(), LIMIT, mode));
          nanos.add(System.nanoTime() - t0);
          response.path("records").forEach(r -> ranked.add(r.path("id").asText()));
          answered += ranked.isEmpty() ? 0 : 1;
        } catch (SgmException e) {
          nanos.add(System.nanoTime() - t0);
          if (errors++ == 0) {
            firstError = e.code().wireName() + ": " + e.getMessage();
          }
        }
        recall.add(ranked, q.evidence());
      }
      byConversation.put(c.name(), recall);
    }
    if (firstError != null) {
      System.out.printf(
          Locale.ROOT, "  %s: %d retrieves failed, the first with %s%n", label, errors, firstError);
    }
    long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
    return new Pass(label, byConversation, sorted, answered, errors);
  }

  /**
   * Waits until the server says its semantic index holds every stored turn: a field of discovery's
   * {@code retrieval} object, or of a semantic retrieve's response, that reports lag (or says it
   * has caught up). A server that reports nothing is polled a few times and the figures are marked
   * as taken without knowing.
   */
  private void awaitSemanticIndex(SgmHttpClient client, Map<String, ObjectNode> scopes)
      throws InterruptedException {
    Conversation last = conversations.get(conversations.size() - 1);
    Turn probe = last.turns().get(last.turns().size() - 1);
    ObjectNode scope = scopes.get(last.name());
    long start = System.currentTimeMillis();
    String unchanged = null;
    int sameReports = 0;
    for (int poll = 1; ; poll++) {
      Map<String, JsonNode> reports =
          SemanticLag.reports("retrieval", client.discovery().path("retrieval"));
      boolean probeFound = false;
      // A search counts as a caller coming and holds the embedding back, so one is asked only when
      // discovery says nothing waits, or says nothing at all.
      if (SemanticLag.caughtUp(reports).orElse(true)) {
        JsonNode response;
        try {
          response = client.call("retrieve", query(scope, probe.content(), 5, "semantic"));
        } catch (SgmException e) {
          response = Json.object();
        }
        probeFound =
            response.path("records").size() > 0
                && response.path("records").get(0).path("id").asText().equals(probe.id());
        reports.putAll(SemanticLag.reports("retrieve", response));
      }
      Optional<Boolean> caughtUp = SemanticLag.caughtUp(reports);
      if (caughtUp.isEmpty()) {
        if (poll >= UNREPORTED_POLLS) {
          System.out.printf(
              Locale.ROOT,
              "  the server does not report how far its semantic index lags; polled %d times: could"
                  + " not tell whether it has caught up (the last stored turn %s the first semantic"
                  + " hit for its own text)%n",
              poll,
              probeFound ? "was" : "was not");
          return;
        }
      } else if (caughtUp.get()) {
        System.out.printf(
            Locale.ROOT,
            "  semantic index caught up after %.1f s (%s)%n",
            (System.currentTimeMillis() - start) / 1e3,
            Json.write(Json.mapper().valueToTree(reports)));
        return;
      } else {
        String now = reports.toString();
        sameReports = now.equals(unchanged) ? sameReports + 1 : 0;
        unchanged = now;
        // A figure that never moves while nothing is written is a bound the server states, not a
        // backlog that drains.
        if (sameReports >= 30) {
          System.out.println(
              "  the server reports "
                  + now
                  + " and it has not changed for 30 s; taking it as a"
                  + " stated bound rather than a backlog");
          return;
        }
        if (System.currentTimeMillis() - start > MAX_WAIT_MILLIS) {
          System.out.println("  gave up waiting for the semantic index after 30 minutes: " + now);
          return;
        }
        if (poll % 10 == 1) {
          System.out.println("  waiting for the semantic index: " + now);
        }
      }
      Thread.sleep(1000);
    }
  }

  private void print(List<Pass> passes) {
    System.out.printf(
        Locale.ROOT,
        "%n%-28s %6s %6s %6s %10s %9s %9s %8s %8s%n",
        "mode",
        "R@5",
        "R@10",
        "R@25",
        "questions",
        "answered",
        "mean ms",
        "p50 ms",
        "p99 ms");
    for (int i = 0; i < passes.size(); i++) {
      Pass pass = passes.get(i);
      if (pass == null) {
        System.out.printf(Locale.ROOT, "%-28s %6s%n", MODES.get(i), "n/a");
        continue;
      }
      Recall total = pass.total();
      double mean = Arrays.stream(pass.sortedNanos()).average().orElse(0) / 1e6;
      System.out.printf(
          Locale.ROOT,
          "%-28s %6.1f %6.1f %6.1f %10d %9d %9.2f %8.2f %8.2f%s%n",
          pass.label(),
          total.percent(0),
          total.percent(1),
          total.percent(2),
          total.questions(),
          pass.answered(),
          mean,
          Measurement.p50Millis(pass.sortedNanos()),
          Measurement.p99Millis(pass.sortedNanos()),
          pass.errors() > 0 ? "  (" + pass.errors() + " errors)" : "");
      Recall tune = new Recall();
      Recall check = new Recall();
      for (Conversation c : conversations) {
        (tuning(c) ? tune : check).addAll(pass.byConversation().get(c.name()));
      }
      System.out.printf(
          Locale.ROOT,
          "  tuning conversations %6.1f %6.1f %6.1f   the others %6.1f %6.1f %6.1f%n",
          tune.percent(0),
          tune.percent(1),
          tune.percent(2),
          check.percent(0),
          check.percent(1),
          check.percent(2));
      if (verbose) {
        for (Map.Entry<String, Recall> c : pass.byConversation().entrySet()) {
          Recall r = c.getValue();
          System.out.printf(
              Locale.ROOT,
              "  conversation %-14s %6.1f %6.1f %6.1f %10d%n",
              c.getKey(),
              r.percent(0),
              r.percent(1),
              r.percent(2),
              r.questions());
        }
      }
    }
    System.out.println(
        "recall in percent of the evidence turns; answered: questions with at least one record"
            + " returned; targets: default R@5 >= 62, R@10 >= 72; the tuning conversations are"
            + " the first two by name, the only ones values were chosen on");
  }
}
