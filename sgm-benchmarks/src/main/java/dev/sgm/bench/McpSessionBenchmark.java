package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.transport.mcp.McpClient;
import dev.sgm.transport.mcp.McpStdioClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What an agent session's {@code sgm mcp} costs, as agents start one per session:
 *
 * <ul>
 *   <li>a further session beside a holder (a thin relay: no storage, index or model), from its
 *       start to its first answer ({@code server/discover}), p50 over the rounds (target 400 ms),
 *       and its resident memory once it has listed the tools and recalled (target 64 MB); beside
 *       the machine's floor, a bare JVM answering one line on the same flags;
 *   <li>the holder's resident memory with and without the embedding model;
 *   <li>tool calls per second through each era of MCP (2026-07-28 and 2025), one caller, in turns
 *       A, B, B, A (target: within 10% of each other).
 * </ul>
 *
 * <p>Run: {@code ./sgm-benchmarks/run-mcp-session} ({@code -Dsgm.bench.rounds}, {@code
 * -Dsgm.bench.count}).
 */
public final class McpSessionBenchmark {
  private McpSessionBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: McpSessionBenchmark PATH/TO/bin/sgm PATH/TO/java");
      System.exit(2);
    }
    String sgm = args[0];
    String java = args[1];
    int rounds = Integer.getInteger("sgm.bench.rounds", 20);
    int count = Integer.getInteger("sgm.bench.count", 2000);
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-mcp-session-bench")) {
      Path data = scratch.path().resolve("data");
      try (McpStdioClient holder =
          SharedDirectoryBenchmark.session(sgm, scratch.path(), data, "holder")) {
        for (int i = 0; i < 200; i++) {
          SharedDirectoryBenchmark.store(holder, i);
        }
        recall(holder);
        System.out.printf(
            Locale.ROOT,
            "A further sgm mcp beside a holder, %d rounds after two that warm the start-up cache%n",
            rounds);
        further(sgm, scratch.path(), data, java, rounds);
        System.out.println();
        System.out.printf(
            Locale.ROOT,
            "the holder (first session, embedder on): RSS %.1f MB%n",
            rssMegabytes(holder.process().pid()));
      }
      try (McpStdioClient plain =
          session(
              sgm,
              scratch.path(),
              scratch.path().resolve("plain"),
              "embedders.disabled=bge-e5-small,bge-small-en")) {
        for (int i = 0; i < 200; i++) {
          SharedDirectoryBenchmark.store(plain, i);
        }
        recall(plain);
        System.out.printf(
            Locale.ROOT,
            "a holder without the embedder: RSS %.1f MB%n",
            rssMegabytes(plain.process().pid()));
      }
      System.out.println();
      eras(sgm, scratch.path(), count);
    }
  }

  /** Starts further sessions one by one: time to the first answer, and RSS after a recall. */
  private static void further(String sgm, Path scratch, Path data, String java, int rounds)
      throws Exception {
    long[] first = new long[rounds];
    double[] rss = new double[rounds];
    long[] floor = new long[rounds];
    double[] floorRss = new double[rounds];
    Path floorSource = scratch.resolve("Floor.java");
    Files.writeString(
        floorSource,
        """
        public class Floor {
          public static void main(String[] a) throws Exception {
            var in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
            for (String line = in.readLine(); line != null; line = in.readLine()) {
              System.out.println("{\\"jsonrpc\\":\\"2.0\\",\\"id\\":1,\\"result\\":{}}");
              System.out.flush();
            }
          }
        }
        """);
    Path classes = scratch.resolve("floor-classes");
    Process compile =
        new ProcessBuilder(
                Path.of(java).resolveSibling("javac").toString(),
                "-d",
                classes.toString(),
                floorSource.toString())
            .inheritIO()
            .start();
    compile.waitFor();
    ProcessBuilder relay =
        new ProcessBuilder(
                sgm, "mcp", "--data", data.toString(), "--project", "bench", "--agent", "further")
            .redirectError(
                ProcessBuilder.Redirect.appendTo(scratch.resolve("further.err").toFile()));
    relay.environment().put("XDG_CACHE_HOME", scratch.resolve("cache").toString());
    run(relay, true);
    run(relay, true);
    Measurement.awaitStartupCaches(scratch.resolve("cache"));
    for (int round = 0; round < rounds; round++) {
      Run run = run(relay, true);
      first[round] = run.firstNanos();
      rss[round] = run.rssMegabytes();
      ProcessBuilder bare =
          new ProcessBuilder(
                  java,
                  "-XX:+UseSerialGC",
                  "-Xms8m",
                  "-XX:TieredStopAtLevel=1",
                  "-XX:+AutoCreateSharedArchive",
                  "-XX:SharedArchiveFile=" + scratch.resolve("floor.jsa"),
                  "-Xlog:cds=off",
                  "-Xlog:cds+dynamic=off",
                  "-cp",
                  classes.toString(),
                  "Floor")
              .redirectError(ProcessBuilder.Redirect.DISCARD);
      Run floorRun = run(bare, false);
      floor[round] = floorRun.firstNanos();
      floorRss[round] = floorRun.rssMegabytes();
    }
    report("further sgm mcp (relay)", first, rss);
    report("floor: a bare JVM answering", floor, floorRss);
    System.out.printf(
        Locale.ROOT,
        "  relay / floor: first answer %.2fx, RSS %.2fx%n",
        median(first) / (double) median(floor),
        medianOf(rss) / medianOf(floorRss));
  }

  private record Run(long firstNanos, double rssMegabytes) {}

  /**
   * Starts {@code command}, sends {@code server/discover} at once and times its answer; for an SGM
   * relay, then lists the tools and recalls, and reads its resident memory before it ends.
   */
  private static Run run(ProcessBuilder command, boolean sgm) throws Exception {
    long start = System.nanoTime();
    Process process = command.start();
    OutputStream in = process.getOutputStream();
    BufferedReader out =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    send(in, request(1, "server/discover", Json.object()));
    String line = out.readLine();
    long first = System.nanoTime() - start;
    if (line == null) {
      throw new IllegalStateException("no answer from " + command.command());
    }
    if (sgm) {
      send(in, request(2, "tools/list", Json.object()));
      out.readLine();
      ObjectNode call = Json.object().put("name", "sgm_retrieve");
      call.putObject("arguments").put("text", "benchmark record").put("limit", 5);
      send(in, request(3, "tools/call", call));
      JsonNode answer = Json.parse(out.readLine());
      if (answer.path("result").path("isError").asBoolean(true)) {
        throw new IllegalStateException("the recall failed: " + answer);
      }
    }
    double rss = rssMegabytes(process.pid());
    in.close();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
    return new Run(first, rss);
  }

  private static ObjectNode request(int id, String method, ObjectNode params) {
    ObjectNode meta = params.putObject("_meta");
    meta.put("io.modelcontextprotocol/protocolVersion", "2026-07-28");
    meta.putObject("io.modelcontextprotocol/clientCapabilities");
    return Json.object()
        .put("jsonrpc", "2.0")
        .put("id", id)
        .put("method", method)
        .set("params", params);
  }

  private static void send(OutputStream in, JsonNode message) throws IOException {
    in.write((Json.write(message) + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  private static void recall(McpStdioClient session) {
    ObjectNode query = Json.object();
    query.put("text", "benchmark record").put("limit", 5);
    session.call("retrieve", query);
  }

  private static McpStdioClient session(String sgm, Path scratch, Path data, String setting)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
                sgm,
                "mcp",
                "--data",
                data.toString(),
                "--project",
                "bench",
                "--agent",
                "bench",
                "-D",
                setting)
            .redirectError(ProcessBuilder.Redirect.appendTo(scratch.resolve("plain.err").toFile()));
    builder.environment().put("XDG_CACHE_HOME", scratch.resolve("cache").toString());
    return new McpStdioClient(builder);
  }

  /**
   * Tool calls per second through a 2026-07-28 client and a 2025 session of one server (MCP over
   * Streamable HTTP, where both eras reach the same process the same way), in turns.
   */
  private static void eras(String sgm, Path scratch, int count) throws Exception {
    ProcessBuilder serve =
        new ProcessBuilder(
                sgm,
                "serve",
                "--data",
                scratch.resolve("eras").toString(),
                "-D",
                "http.port=0",
                "-D",
                "grpc.port=0",
                "-D",
                "mcp.port=0")
            .redirectError(ProcessBuilder.Redirect.appendTo(scratch.resolve("eras.err").toFile()));
    serve.environment().put("XDG_CACHE_HOME", scratch.resolve("cache").toString());
    Process server = serve.start();
    try {
      BufferedReader lines =
          new BufferedReader(
              new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
      String endpoint = null;
      for (String line = lines.readLine();
          line != null && !line.startsWith("ready");
          line = lines.readLine()) {
        if (line.startsWith("serving ") && line.endsWith("/mcp")) {
          endpoint = line.substring("serving ".length()) + "?project=bench&agent=bench";
        }
      }
      if (endpoint == null) {
        throw new IllegalStateException("the server did not serve MCP");
      }
      McpClient modern = new McpClient(endpoint);
      McpClient legacy = McpClient.legacy(endpoint, null);
      for (int i = 0; i < 500; i++) {
        ObjectNode record = Json.object();
        record.put("id", "r" + i).put("type", "note").put("content", "benchmark record " + i);
        modern.call("store", Json.object().set("record", record));
      }
      int rounds = 8;
      double[] modernRate = new double[rounds];
      double[] legacyRate = new double[rounds];
      int[] key = {0};
      for (int warm = 0; warm < 2; warm++) {
        rate(modern, count / 4, key);
        rate(legacy, count / 4, key);
      }
      for (int round = 0; round < rounds; round++) {
        if (Measurement.secondSide(round)) {
          legacyRate[round] = rate(legacy, count / rounds, key);
          modernRate[round] = rate(modern, count / rounds, key);
        } else {
          modernRate[round] = rate(modern, count / rounds, key);
          legacyRate[round] = rate(legacy, count / rounds, key);
        }
      }
      double m = Arrays.stream(modernRate).sum() / rounds;
      double l = Arrays.stream(legacyRate).sum() / rounds;
      System.out.printf(
          Locale.ROOT,
          "tool calls (read, then recall, alternately) over Streamable HTTP, one caller, %d per era:%n"
              + "  2026-07-28 %8.0f calls/s%n  2025-11-25 %8.0f calls/s%n"
              + "  2026 / 2025: %.3f (target within 0.90-1.10)%n",
          count,
          m,
          l,
          m / l);
    } finally {
      server.destroy();
      server.waitFor(30, TimeUnit.SECONDS);
    }
  }

  private static double rate(dev.sgm.api.SgmClient session, int calls, int[] key) {
    long start = System.nanoTime();
    for (int i = 0; i < calls; i++) {
      int k = key[0]++;
      if (k % 2 == 0) {
        ObjectNode read = Json.object().put("id", "r" + (k % 500));
        session.call("read", read);
      } else {
        ObjectNode query = Json.object().put("text", "record " + (k % 500)).put("limit", 3);
        session.call("retrieve", query);
      }
    }
    return calls / ((System.nanoTime() - start) / 1e9);
  }

  private static void report(String name, long[] firstNanos, double[] rss) {
    long[] sorted = Arrays.copyOfRange(firstNanos, 1, firstNanos.length);
    Arrays.sort(sorted);
    double[] memory = Arrays.copyOfRange(rss, 1, rss.length);
    Arrays.sort(memory);
    System.out.printf(
        Locale.ROOT,
        "  %-30s first answer p50 %6.0f ms  p90 %6.0f ms   RSS p50 %5.1f MB  max %5.1f MB%n",
        name,
        sorted[sorted.length / 2] / 1e6,
        sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.9) - 1)] / 1e6,
        memory[memory.length / 2],
        memory[memory.length - 1]);
  }

  private static long median(long[] values) {
    long[] sorted = Arrays.copyOfRange(values, 1, values.length);
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static double medianOf(double[] values) {
    double[] sorted = Arrays.copyOfRange(values, 1, values.length);
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  /** The resident memory of a process, from /proc, in megabytes (MiB). */
  static double rssMegabytes(long pid) throws IOException {
    List<String> status =
        new ArrayList<>(Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")));
    for (String line : status) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    throw new IOException("no VmRSS for process " + pid);
  }
}
