package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.transport.mcp.McpStdioClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * What {@code sgm context} costs at a session start, as an agent's hook runs it, and what its brief
 * holds against its budget:
 *
 * <ul>
 *   <li>its time from start to exit, p50 and p90 over the rounds, while another process holds the
 *       data directory (target 300 ms) and with none (it opens the store itself; target 1.5 s),
 *       beside the machine's floor: a bare JVM that starts, prints a line and exits;
 *   <li>at 10, 1,000 and 100,000 records (notes, with a few handoffs, rules, decisions, tasks and
 *       statuses), the brief's size in tokens for budgets of 300, 1,500 and 6,000, and how many
 *       records it shows.
 * </ul>
 *
 * <p>Run: {@code ./sgm-benchmarks/run-context} ({@code -Dsgm.bench.rounds}, default 20).
 */
public final class ContextBenchmark {
  private static final int[] TIERS = {10, 1_000, 100_000};
  private static final int[] BUDGETS = {300, 1_500, 6_000};

  private ContextBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 2) {
      System.err.println("usage: ContextBenchmark PATH/TO/bin/sgm PATH/TO/java");
      System.exit(2);
    }
    String sgm = args[0];
    String java = args[1];
    int rounds = Integer.getInteger("sgm.bench.rounds", 20);
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-context-bench")) {
      Path data = scratch.path().resolve("data");
      Path floor = Floor.compile(java, scratch.path());
      int stored = 0;
      // The same command is timed beside a holder and alone.
      List<String> context =
          List.of(
              sgm, "context", "--data", data.toString(), "--project", "bench", "--agent", "claude");
      for (int tier : TIERS) {
        try (McpStdioClient holder = holder(sgm, scratch.path(), data)) {
          stored = fill(holder, stored, tier);
          System.out.printf(Locale.ROOT, "%n%,d records%n", tier);
          sizes(sgm, scratch.path(), data);
          long[] held = times(context, scratch.path(), rounds);
          long[] bare = times(Floor.command(java, floor), scratch.path(), rounds);
          report("sgm context beside a holder", held, 300, bare);
        }
        long[] alone = times(context, scratch.path(), rounds);
        long[] bare = times(Floor.command(java, floor), scratch.path(), rounds);
        report("sgm context with no holder", alone, 1500, bare);
      }
    }
  }

  /**
   * The holder: an MCP session without the embedding model, which would spend the machine's two
   * cores embedding 100,000 notes while the briefs are timed (a brief searches by words).
   */
  private static McpStdioClient holder(String sgm, Path scratch, Path data) throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
                sgm,
                "mcp",
                "--data",
                data.toString(),
                "--project",
                "bench",
                "--agent",
                "holder",
                "-D",
                "embedders.disabled=bge-e5-small,bge-small-en")
            .redirectError(
                ProcessBuilder.Redirect.appendTo(scratch.resolve("holder.err").toFile()));
    builder.environment().put("XDG_CACHE_HOME", scratch.resolve("cache").toString());
    return new McpStdioClient(builder);
  }

  /** Stores records up to {@code tier}: the typed ones first, then agent notes. */
  private static int fill(McpStdioClient holder, int stored, int tier) {
    AgentNotes notes = new AgentNotes(11 + stored);
    if (stored == 0) {
      ArrayNode typed = Json.array();
      typed.add(
          typed(
              "h1",
              "handoff",
              "{'from_agent':'alice','state':'open','summary':'Finish the Postgres migration: the user_id column is still nullable.','next_steps':['backfill','add the constraint']}"));
      typed.add(
          typed(
              "r1",
              "rule",
              "{'statement':'Never push to main without a review.','severity':'must'}"));
      typed.add(
          typed(
              "r2",
              "rule",
              "{'statement':'Prefer small commits that each build.','severity':'should'}"));
      typed.add(
          typed(
                  "d1",
                  "decision",
                  "{'status':'accepted','rationale':'One process holds the file; the others talk to it.'}")
              .put("title", "Share the data directory through its holder"));
      typed.add(
          typed("t1", "task", "{'state':'open'}").put("title", "Write the migration's rollback"));
      typed.add(
          typed(
              "s1",
              "status",
              "{'state':'done','summary':'fixed the flaky retry logic test','as_of':'2026-12-01T10:00:00Z'}"));
      batch(holder, typed);
      stored = typed.size();
    }
    ArrayNode batch = Json.array();
    for (int i = stored; i < tier; i++) {
      ObjectNode record = Json.object();
      record.put("id", "n" + i).put("type", "note").put("content", notes.next());
      batch.add(attributed(record));
      if (batch.size() == 1000) {
        batch(holder, batch);
        batch = Json.array();
      }
    }
    if (!batch.isEmpty()) {
      batch(holder, batch);
    }
    return tier;
  }

  private static ObjectNode typed(String id, String type, String data) {
    ObjectNode record = Json.object();
    record.put("id", id).put("type", type);
    record.set("data", Json.parse(data.replace('\'', '"')));
    return attributed(record);
  }

  private static ObjectNode attributed(ObjectNode record) {
    record.putObject("scope").put("project", "bench");
    record.putObject("provenance").put("agent", "bench");
    return record;
  }

  private static void batch(McpStdioClient holder, ArrayNode records) {
    ObjectNode request = Json.object();
    request.set("records", records);
    holder.call("store_batch", request);
  }

  /** The brief's size against its budget, and what it shows, for each budget. */
  private static void sizes(String sgm, Path scratch, Path data) throws Exception {
    for (int budget : BUDGETS) {
      String out =
          output(
              List.of(
                  sgm,
                  "context",
                  "--data",
                  data.toString(),
                  "--project",
                  "bench",
                  "--agent",
                  "claude",
                  "--format",
                  "json",
                  "--budget",
                  String.valueOf(budget)),
              scratch);
      JsonNode brief = Json.parse(out);
      int shown = 0;
      long total = 0;
      for (JsonNode section : brief.path("sections")) {
        shown += section.path("shown").size();
        total += section.path("total").asLong();
      }
      System.out.printf(
          Locale.ROOT,
          "  budget %,6d: brief %,6d tokens (%.0f%%), %d records shown of %d gathered%n",
          budget,
          brief.path("tokens").asInt(),
          100.0 * brief.path("tokens").asInt() / budget,
          shown,
          total);
    }
  }

  /**
   * Runs {@code command} {@code rounds} times after two warm-ups (and the start-up cache they
   * leave); the wall time of each, sorted.
   */
  private static long[] times(List<String> command, Path scratch, int rounds) throws Exception {
    output(command, scratch);
    output(command, scratch);
    Measurement.awaitStartupCaches(scratch.resolve("cache"));
    long[] nanos = new long[rounds];
    for (int i = 0; i < rounds; i++) {
      long start = System.nanoTime();
      output(command, scratch);
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    return nanos;
  }

  private static String output(List<String> command, Path scratch) throws Exception {
    ProcessBuilder builder =
        new ProcessBuilder(command)
            .redirectError(
                ProcessBuilder.Redirect.appendTo(scratch.resolve("context.err").toFile()));
    builder.environment().put("XDG_CACHE_HOME", scratch.resolve("cache").toString());
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException(command + " failed: " + out);
    }
    return out;
  }

  private static void report(String what, long[] nanos, int targetMillis, long[] floor) {
    double p50 = Measurement.p50Millis(nanos);
    double p90 = nanos[(int) Math.min(nanos.length - 1, Math.ceil(nanos.length * 0.9) - 1)] / 1e6;
    double floorP50 = Measurement.p50Millis(floor);
    System.out.printf(
        Locale.ROOT,
        "  %-28s p50 %6.0f ms  p90 %6.0f ms  (target %d ms)   floor p50 %4.0f ms   ratio %.1fx%n",
        what,
        p50,
        p90,
        targetMillis,
        floorP50,
        p50 / floorP50);
  }

  /** The floor: a bare JVM on the thin client's flags that prints a line and exits. */
  static final class Floor {
    private Floor() {}

    static Path compile(String java, Path scratch) throws IOException, InterruptedException {
      Path source = scratch.resolve("Hello.java");
      Files.writeString(
          source,
          "public class Hello { public static void main(String[] a) { System.out.println(\"hi\"); } }");
      Path classes = scratch.resolve("floor-classes");
      Process javac =
          new ProcessBuilder(
                  Path.of(java).resolveSibling("javac").toString(),
                  "-d",
                  classes.toString(),
                  source.toString())
              .inheritIO()
              .start();
      if (javac.waitFor() != 0) {
        throw new IllegalStateException("javac failed");
      }
      // In a jar: the JVM refuses to archive classes from a directory on the class path.
      Path jar = scratch.resolve("floor.jar");
      Process pack =
          new ProcessBuilder(
                  Path.of(java).resolveSibling("jar").toString(),
                  "--create",
                  "--file",
                  jar.toString(),
                  "-C",
                  classes.toString(),
                  ".")
              .inheritIO()
              .start();
      if (pack.waitFor() != 0) {
        throw new IllegalStateException("jar failed");
      }
      return jar;
    }

    static List<String> command(String java, Path jar) {
      List<String> command = new ArrayList<>();
      command.addAll(
          List.of(
              java,
              "-XX:+UseSerialGC",
              "-Xms4m",
              "-XX:TieredStopAtLevel=1",
              "-XX:+AutoCreateSharedArchive",
              "-XX:SharedArchiveFile=" + jar.resolveSibling("floor.jsa"),
              "-Xlog:cds=off",
              "-Xlog:cds+dynamic=off",
              "-cp",
              jar.toString(),
              "Hello"));
      return command;
    }
  }
}
