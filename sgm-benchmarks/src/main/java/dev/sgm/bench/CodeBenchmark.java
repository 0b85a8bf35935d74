package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.bench.Measurement.Result;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * Symbol lookups at scale: seeds one repository's scope with N symbol records (as {@code sgm code
 * import-symbols} would: names shared by about five symbols each, across kinds and files), then
 * times {@code code.symbols} by exact name, by name and kind, and by exact path. Target: by name,
 * p50 at most 5 ms at 1,000,000 symbols.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-code [symbols ...]} (default 1000000).
 */
public final class CodeBenchmark {
  private static final String[] KINDS = {"class", "method", "field", "interface", "enum"};
  private static final int SYMBOLS_PER_FILE = 40;
  private static final Caller CALLER = Caller.embedded();

  private CodeBenchmark() {}

  public static void main(String[] args) throws Exception {
    List<Integer> sizes = new ArrayList<>();
    for (String arg : args) {
      sizes.add(Integer.parseInt(arg.replace("_", "")));
    }
    if (sizes.isEmpty()) {
      sizes.add(1_000_000);
    }
    for (int size : sizes) {
      run(size);
    }
  }

  private static void run(int symbols) throws Exception {
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-code-bench")) {
      Path dir = scratch.path();
      // History is off for the seeding only: it would double the load time and plays no part in a
      // lookup.
      try (SgmRuntime sgm =
          SgmRuntime.open(
              ConfigLoader.load(
                  Map.of(ConfigLoader.DATA_DIR, dir.toString(), "profiles.disabled", "history"),
                  Map.of()))) {
        if (!sgm.discovery().supports("code")) {
          throw new IllegalStateException("the code profile must be on the module path");
        }
        int names = Math.max(1, symbols / 5);
        Random random = new Random(42);
        System.out.printf(Locale.ROOT, "%,d symbols (%,d distinct names):%n", symbols, names);
        long t0 = System.nanoTime();
        List<JsonNode> batch = new ArrayList<>();
        for (int i = 0; i < symbols; i++) {
          // Spread over the files so a name's symbols are not neighbours; every name is used.
          String name = "name" + (i * 7919L % names);
          batch.add(symbol(i, name, KINDS[random.nextInt(KINDS.length)]));
          if (batch.size() == 1000 || i == symbols - 1) {
            sgm.service().storeBatch(CALLER, new BatchStoreRequest(batch, false));
            batch = new ArrayList<>();
            if ((i + 1) % 100_000 == 0) {
              System.out.printf(Locale.ROOT, "  loaded %,d symbols%n", i + 1);
            }
          }
        }
        System.out.printf(Locale.ROOT, "  loaded in %.1f s%n", (System.nanoTime() - t0) / 1e9);
        int files = Math.max(1, symbols / SYMBOLS_PER_FILE);
        int count = 5000;
        int[] keys = {0};
        Random pick = new Random(7);
        List<Result> results = new ArrayList<>();
        results.add(
            Measurement.measure(
                "code.symbols by name",
                count,
                k -> lookup(sgm, "\"name\":\"name" + pick.nextInt(names) + "\"", 1),
                keys));
        results.add(
            Measurement.measure(
                "code.symbols by name and kind",
                count,
                k ->
                    lookup(
                        sgm,
                        "\"name\":\"name"
                            + pick.nextInt(names)
                            + "\",\"kind\":\""
                            + KINDS[pick.nextInt(KINDS.length)]
                            + "\"",
                        0),
                keys));
        results.add(
            Measurement.measure(
                "code.symbols by path",
                count,
                k ->
                    lookup(sgm, "\"path\":\"" + path(pick.nextInt(files)) + "\"", SYMBOLS_PER_FILE),
                keys));
        results.forEach(Result::print);
        System.out.printf(
            Locale.ROOT,
            "  by name at %,d symbols: p50 %.3f ms (target <= 5 ms)%n",
            symbols,
            results.get(0).p50Millis());
      }
    }
  }

  /**
   * Runs one lookup and checks it found at least {@code atLeast} symbols, so nothing is skipped.
   */
  private static void lookup(SgmRuntime sgm, String criteria, int atLeast) {
    JsonNode found =
        sgm.service()
            .invoke(
                CALLER,
                "code.symbols",
                Json.parse("{\"scope\":{\"project\":\"repo\"}," + criteria + "}"));
    if (found.path("total").asLong() < atLeast) {
      throw new IllegalStateException("a lookup found too little: " + criteria + " -> " + found);
    }
  }

  private static String path(int file) {
    return "src/main/java/pkg" + (file % 500) + "/File" + file + ".java";
  }

  private static JsonNode symbol(int i, String name, String kind) {
    ObjectNode r = Json.object();
    r.put("id", "symbol-" + i);
    r.put("type", "symbol");
    r.putObject("scope").put("project", "repo");
    r.put("title", name);
    ObjectNode data = r.putObject("data");
    data.put("name", name);
    data.put("kind", kind);
    data.put("path", path(i / SYMBOLS_PER_FILE));
    data.put("language", "Java");
    data.putObject("range").put("start_line", 1 + (i % SYMBOLS_PER_FILE) * 10);
    r.putObject("provenance").put("agent", "bench");
    return r;
  }
}
