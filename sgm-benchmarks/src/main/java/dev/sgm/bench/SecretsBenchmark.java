package dev.sgm.bench;

import dev.sgm.api.Caller;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.bench.Locomo.Conversation;
import dev.sgm.bench.Locomo.Turn;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SecretScanner;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.ServiceLoader;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the credential scanner finds and what it costs. Detection: fake credentials of every kind
 * the scanner knows, generated here in the contexts agents paste them in, and the share found as
 * their kind; false positives: generated look-alikes (hashes, ids, encodings, versions, prose about
 * passwords and keys) and, when it is beside the project, every turn of the LoCoMo development half
 * (conversations with nothing secret in them). Cost: stores per second on two embedded stores with
 * {@code secrets.on-detect=redact} (the default) and {@code allow} (no scan), with one caller and
 * with 16, in paired rounds, in memory and on disk; the figure is the median ratio. Target: at
 * least 0.9x. The scanner's own time per record is printed beside it.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-secrets}; {@code -Dsgm.bench.seconds} each side is timed in a
 * round (default 5, after a second of warm-up).
 */
public final class SecretsBenchmark {
  private static final int ROUNDS = 9;

  /**
   * Records each side keeps: later stores replace earlier ones (a new version, new text), so that
   * minutes of stores in memory fit the heap.
   */
  private static final long KEPT = 20_000;

  private static final int SAMPLES = 500;
  private static final String UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  private static final String LOWER = "abcdefghijklmnopqrstuvwxyz";
  private static final String DIGITS = "0123456789";
  private static final String HEX = "0123456789abcdef";
  private static final String ALNUM = UPPER + LOWER + DIGITS;
  private static final String BASE64 = ALNUM + "+/";
  private static final Caller CALLER = Caller.embedded();
  private final Random random = new Random(43);

  private SecretsBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path data = Path.of("..", "shared", "data", "locomo-dev");
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--data")) {
        data = Path.of(args[++i]);
      } else {
        throw new IllegalArgumentException("unknown argument " + args[i] + "; usage: [--data DIR]");
      }
    }
    SecretsBenchmark benchmark = new SecretsBenchmark();
    benchmark.detection();
    benchmark.falsePositives();
    locomo(data);
    int seconds = Integer.getInteger("sgm.bench.seconds", 5);
    // In memory the store is cheapest, so the scanner's share is largest; on disk, as deployed.
    throughput(seconds, false);
    throughput(seconds, true);
  }

  private String random(String alphabet, int length) {
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return out.toString();
  }

  /** A fake credential of each kind the scanner knows, as an agent would paste it. */
  private Map<String, String> fakes() {
    Map<String, String> fakes = new LinkedHashMap<>();
    fakes.put("aws_access_key_id", "AKIA" + random(UPPER + "234567", 16));
    fakes.put("aws_secret_access_key", "aws_secret_access_key = " + random(BASE64, 37) + "9Zz");
    fakes.put("github_token", "ghp_" + random(ALNUM, 36));
    fakes.put("gitlab_token", "glpat-" + random(ALNUM, 20));
    fakes.put("npm_token", "npm_" + random(ALNUM, 36));
    fakes.put("pypi_token", "pypi-AgEIcHlwaS5vcmc" + random(ALNUM, 60));
    fakes.put("slack_token", "xoxb-" + random(DIGITS, 12) + "-" + random(ALNUM, 24));
    fakes.put(
        "slack_webhook",
        "https://hooks.slack.com/services/T"
            + random(UPPER + DIGITS, 8)
            + "/B"
            + random(UPPER + DIGITS, 8)
            + "/"
            + random(ALNUM, 24));
    fakes.put("stripe_key", "sk_live_" + random(ALNUM, 24));
    fakes.put("anthropic_api_key", "sk-ant-api03-" + random(ALNUM + "-_", 90));
    fakes.put("openai_api_key", "sk-proj-" + random(ALNUM + "-_", 60));
    fakes.put("google_api_key", "AIza" + random(ALNUM, 35));
    fakes.put(
        "jwt", "eyJhbGciOiJIUzI1NiJ9.eyJ" + random(ALNUM, 30) + "." + random(ALNUM + "-_", 43));
    fakes.put(
        "azure_storage_key",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
            + random(BASE64, 86)
            + "==;EndpointSuffix=core.windows.net");
    fakes.put("url_password", "postgres://app:" + random(ALNUM, 16) + "@db.internal:5432/app");
    fakes.put(
        "authorization_header",
        "curl -H 'Authorization: Bearer " + random(ALNUM, 40) + "' https://api.example.com");
    fakes.put("assigned_secret", "DB_PASSWORD=" + random(ALNUM + "!#%", 20));
    fakes.put(
        "private_key",
        "-----BEGIN OPENSSH PRIVATE KEY-----\n"
            + random(BASE64, 64)
            + "\n"
            + random(BASE64, 64)
            + "\n-----END OPENSSH PRIVATE KEY-----");
    return fakes;
  }

  private static final String[] CONTEXTS = {
    "Deploy notes: %s (rotate next week)",
    "export TOKEN_VALUE=\"%s\"",
    "{\"env\": {\"value\": \"%s\"}}",
    "$ curl failed with %s\nerror 401",
    "%s",
  };

  private void detection() {
    Map<String, int[]> byKind = new LinkedHashMap<>();
    int found = 0;
    int total = 0;
    for (int n = 0; n < SAMPLES; n++) {
      for (Map.Entry<String, String> fake : fakes().entrySet()) {
        String text = String.format(Locale.ROOT, CONTEXTS[n % CONTEXTS.length], fake.getValue());
        boolean hit =
            SecretScanner.BUILT_IN.scan("content", text).stream()
                .anyMatch(f -> f.kind().equals(fake.getKey()));
        int[] counts = byKind.computeIfAbsent(fake.getKey(), k -> new int[2]);
        counts[0] += hit ? 1 : 0;
        counts[1]++;
        found += hit ? 1 : 0;
        total++;
      }
    }
    System.out.printf(
        Locale.ROOT,
        "detection: %d of %d fake credentials found as their kind (%.1f%%), %d kinds, %d contexts%n",
        found,
        total,
        100.0 * found / total,
        byKind.size(),
        CONTEXTS.length);
    byKind.forEach(
        (kind, counts) -> {
          if (counts[0] < counts[1]) {
            System.out.printf(
                Locale.ROOT, "  missed: %s %d of %d%n", kind, counts[1] - counts[0], counts[1]);
          }
        });
  }

  private List<String> lookAlikes() {
    List<String> texts = new ArrayList<>();
    texts.add("commit " + random(HEX, 40) + " fixed the build");
    texts.add("the secret commit " + random(HEX, 40) + " on aws");
    texts.add("sha256:" + random(HEX, 64));
    texts.add("record id " + java.util.UUID.randomUUID());
    texts.add(
        "encoded: "
            + java.util.Base64.getEncoder()
                .encodeToString(("an ordinary sentence number " + random(DIGITS, 6)).getBytes()));
    texts.add(
        "upgrade to version " + random(DIGITS, 1) + "." + random(DIGITS, 2) + ".328-alpha.12");
    texts.add("Reset your password: it must be at least twelve characters long.");
    texts.add("the password field is required; the token expires after an hour");
    texts.add("Stripe test keys start with sk_test_ and live keys with sk_live_.");
    texts.add("password=${DB_PASSWORD} and api_key=<your key here> and secret: ********");
    texts.add("postgres://localhost:5432/app and https://example.com/a:b@c");
    texts.add("docker image sha256:" + random(HEX, 64) + " pulled");
    texts.add("etag \"" + random(HEX, 32) + "\" and request id " + random(ALNUM, 20));
    return texts;
  }

  private void falsePositives() {
    int flagged = 0;
    int total = 0;
    Map<String, String> examples = new LinkedHashMap<>();
    for (int n = 0; n < SAMPLES; n++) {
      for (String text : lookAlikes()) {
        var found = SecretScanner.BUILT_IN.scan("content", text);
        if (!found.isEmpty()) {
          flagged++;
          examples.putIfAbsent(found.get(0).kind(), text);
        }
        total++;
      }
    }
    System.out.printf(
        Locale.ROOT,
        "false positives on generated look-alikes: %d of %d texts (%.2f%%)%n",
        flagged,
        total,
        100.0 * flagged / total);
    examples.forEach((kind, text) -> System.out.println("  flagged as " + kind + ": " + text));
  }

  private static void locomo(Path data) throws Exception {
    List<Conversation> conversations =
        Files.isDirectory(data) ? Locomo.read(data) : List.<Conversation>of();
    if (conversations.isEmpty()) {
      System.out.println(
          "false positives on LoCoMo: skipped: no conversations in "
              + data.toAbsolutePath().normalize());
      return;
    }
    int turns = 0;
    int flagged = 0;
    for (Conversation conversation : conversations) {
      for (Turn turn : conversation.turns()) {
        turns++;
        var found = SecretScanner.BUILT_IN.scan("content", turn.content());
        if (!found.isEmpty()) {
          flagged++;
          System.out.println("  flagged as " + found.get(0).kind() + ": " + turn.content());
        }
      }
    }
    System.out.printf(
        Locale.ROOT,
        "false positives on LoCoMo (development half): %d of %d turns changed (%d conversations)%n",
        flagged,
        turns,
        conversations.size());
  }

  private static void throughput(int seconds, boolean durable) throws Exception {
    System.out.println(durable ? "on disk (the default store):" : "in memory:");
    List<String> embedders =
        ServiceLoader.load(EmbedderProvider.class).stream().map(p -> p.get().name()).toList();
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-secrets-bench");
        SgmRuntime scanned = open(scratch.path().resolve("redact"), "redact", embedders, durable);
        SgmRuntime unscanned = open(scratch.path().resolve("allow"), "allow", embedders, durable)) {
      // Written ahead: the 16 callers share them, and generating them is not what is measured.
      AgentNotes notes = new AgentNotes(11);
      List<String> texts = new ArrayList<>();
      for (int i = 0; i < 4096; i++) {
        texts.add(notes.next());
      }
      scanAlone(texts);
      List<Double> single = new ArrayList<>();
      List<Double> sixteen = new ArrayList<>();
      Map<String, Double> best = new HashMap<>();
      AtomicLong sequence = new AtomicLong();
      for (int round = 0; round < ROUNDS; round++) {
        Map<String, Double> one = new HashMap<>();
        Map<String, Double> many = new HashMap<>();
        for (SgmRuntime sgm :
            round % 2 == 0
                ? new SgmRuntime[] {scanned, unscanned}
                : new SgmRuntime[] {unscanned, scanned}) {
          // Neither side is timed while the other's index still follows what it stored.
          settle(scanned);
          settle(unscanned);
          String side = sgm == scanned ? "scanned" : "unscanned";
          one.put(
              side,
              Callers.loadInProcess(
                      n -> store(sgm, "n" + n % KEPT, texts.get((int) (n % texts.size()))),
                      1,
                      seconds,
                      sequence)
                  .callsPerSecond());
          settle(scanned);
          settle(unscanned);
          many.put(
              side,
              Callers.loadInProcess(
                      n -> store(sgm, "m" + n % KEPT, texts.get((int) (n % texts.size()))),
                      16,
                      seconds,
                      sequence)
                  .callsPerSecond());
        }
        single.add(one.get("scanned") / one.get("unscanned"));
        sixteen.add(many.get("scanned") / many.get("unscanned"));
        one.forEach((k, v) -> best.merge("1 " + k, v, Math::max));
        many.forEach((k, v) -> best.merge("16 " + k, v, Math::max));
      }
      System.out.printf(
          Locale.ROOT,
          "stores/s, best round: 1 caller %.0f scanned, %.0f not; 16 callers %.0f scanned, %.0f"
              + " not%n",
          best.get("1 scanned"),
          best.get("1 unscanned"),
          best.get("16 scanned"),
          best.get("16 unscanned"));
      System.out.printf(
          Locale.ROOT,
          "stores with the scanner / without: 1 caller %.2fx %s, 16 callers %.2fx %s (median of %d"
              + " paired rounds; target >= 0.9x)%n",
          median(single),
          format(single),
          median(sixteen),
          format(sixteen),
          ROUNDS);
    }
  }

  /** Returns once the search index shows every store made so far (a search waits for that). */
  private static void settle(SgmRuntime sgm) {
    sgm.service()
        .retrieve(
            CALLER,
            dev.sgm.api.RetrieveQuery.builder(dev.sgm.api.Scope.of("project", "bench"))
                .text("settle")
                .limit(1)
                .build());
  }

  /** The scanner's own time on a record of these notes, without storing it. */
  private static void scanAlone(List<String> texts) {
    long found = 0;
    for (int warm = 0; warm < 20_000; warm++) {
      found +=
          SecretScanner.BUILT_IN
              .redact(AgentNotes.record("n", texts.get(warm % texts.size())))
              .size();
    }
    int count = 100_000;
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      found +=
          SecretScanner.BUILT_IN.redact(AgentNotes.record("n", texts.get(i % texts.size()))).size();
    }
    double micros = (System.nanoTime() - start) / 1e3 / count;
    System.out.printf(
        Locale.ROOT,
        "scan alone: %.1f us per agent note record (%d findings in %d scans)%n",
        micros,
        found,
        count + 20_000);
  }

  private static double median(List<Double> values) {
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(sorted.size() / 2);
  }

  private static List<String> format(List<Double> values) {
    return values.stream().map(v -> String.format(Locale.ROOT, "%.2f", v)).toList();
  }

  private static SgmRuntime open(Path dir, String policy, List<String> embedders, boolean durable) {
    Map<String, String> options = new HashMap<>();
    if (durable) {
      options.put(ConfigLoader.DATA_DIR, dir.toString());
    } else {
      options.put(ConfigLoader.STORAGE_MEMORY, "true");
    }
    options.put(ConfigLoader.SECRETS_ON_DETECT, policy);
    if (!embedders.isEmpty()) {
      // Both sides without an embedder: the scanner's cost alone is measured.
      options.put("embedders.disabled", String.join(",", embedders));
    }
    return SgmRuntime.open(ConfigLoader.load(options, Map.of()));
  }

  private static void store(SgmRuntime sgm, String id, String content) {
    sgm.service().store(CALLER, StoreRequest.of(AgentNotes.record(id, content)));
  }
}
