package dev.sgm.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.transport.mcp.McpStdioClient;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * What sharing a data directory between processes costs: a store and a read by an MCP stdio session
 * ({@code bin/sgm mcp}, one caller) whose process holds the directory, against the same through a
 * session whose process reaches the holder over the local channel (target: at most 2x), with the
 * same read answered by {@link BareMcpRelay}'s processes as the floor of those two paths; then the
 * time the survivors take to answer again when the holder is killed (SIGKILL) under a store load,
 * p50 and p99 over the kill cycles.
 *
 * <p>The reads are timed twice: in turns with the stores, while the holder embeds those stores in
 * the background (a core's worth of work on two cores, which delays every process woken to pass a
 * call on), and alone, once the holder has embedded them all.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-shared} ({@code -Dsgm.bench.count}, {@code
 * -Dsgm.bench.cycles}).
 */
public final class SharedDirectoryBenchmark {
  private SharedDirectoryBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: SharedDirectoryBenchmark PATH/TO/bin/sgm");
      System.exit(2);
    }
    String sgm = args[0];
    int count = Integer.getInteger("sgm.bench.count", 5000);
    int cycles = Integer.getInteger("sgm.bench.cycles", 20);
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-shared-bench")) {
      Path data = scratch.path().resolve("data");
      try (McpStdioClient holder = session(sgm, scratch.path(), data, "holder");
          McpStdioClient other = session(sgm, scratch.path(), data, "other")) {
        System.out.printf(
            Locale.ROOT,
            "MCP stdio, one caller, durable store; %d timed calls each, in turns, after warm-up%n",
            count);
        for (int i = 0; i < 1000; i++) {
          store(holder, i); // the records the reads read
        }
        Path sample = scratch.path().resolve("read-result.json");
        Files.writeString(sample, Json.write(holder.call("read", readRequest(0))));
        Path socket = scratch.path().resolve("bare.sock");
        Process answerer =
            new ProcessBuilder(BareMcpRelay.command("answer", socket.toString(), sample.toString()))
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try {
          new BufferedReader(
                  new InputStreamReader(answerer.getInputStream(), StandardCharsets.UTF_8))
              .readLine(); // "listening"
          try (McpStdioClient direct =
                  bare(BareMcpRelay.command("direct", sample.toString()), scratch.path());
              McpStdioClient relay =
                  bare(BareMcpRelay.command("relay", socket.toString()), scratch.path())) {
            List<Timed> reads =
                List.of(
                    new Timed("read via the holder", k -> read(holder, k)),
                    new Timed("read via another process", k -> read(other, k)),
                    new Timed("floor: read by a bare process", k -> read(direct, k)),
                    new Timed("floor: read via a bare relay", k -> read(relay, k)));
            List<Timed> all = new ArrayList<>();
            all.add(new Timed("store via the holder", k -> store(holder, k)));
            all.add(new Timed("store via another process", k -> store(other, k)));
            all.addAll(reads);
            int key = 1000;
            for (int i = 0; i < 2000; i++) { // warm-up: the JIT compiles every path
              for (Timed row : all) {
                row.call().accept(key++);
              }
            }
            System.out.println(
                "stores and reads in turns (the holder embeds the stores meanwhile):");
            List<Measurement.Result> mixed = interleaved(all, count, key);
            mixed.forEach(Measurement.Result::print);
            ratio("store", mixed.get(0), mixed.get(1));
            readRatios(mixed.subList(2, 6));
            long waited = untilEmbedded(holder);
            System.out.printf(
                Locale.ROOT,
                "reads alone, once the holder has embedded every store (after %.1f s):%n",
                waited / 1e9);
            List<Measurement.Result> quiet = interleaved(reads, count, 0);
            quiet.forEach(Measurement.Result::print);
            readRatios(quiet);
          }
        } finally {
          answerer.destroyForcibly();
        }
      }
      handOvers(sgm, scratch.path(), scratch.path().resolve("kill"), cycles);
    }
  }

  /** A row of the benchmark: its name and one call, given a key. */
  private record Timed(String name, IntConsumer call) {}

  /**
   * Times the rows in turns (a slice of each, again and again), so that whatever else the machine
   * does at some moment weighs on all of them alike; keys count up from {@code firstKey}.
   */
  private static List<Measurement.Result> interleaved(List<Timed> rows, int count, int firstKey) {
    int rounds = 10;
    int slice = count / rounds;
    int key = firstKey;
    long[][] nanos = new long[rows.size()][slice * rounds];
    long[] total = new long[rows.size()];
    for (int round = 0; round < rounds; round++) {
      for (int r = 0; r < rows.size(); r++) {
        IntConsumer call = rows.get(r).call();
        long start = System.nanoTime();
        for (int i = 0; i < slice; i++) {
          long t0 = System.nanoTime();
          call.accept(key++);
          nanos[r][round * slice + i] = System.nanoTime() - t0;
        }
        total[r] += System.nanoTime() - start;
      }
    }
    List<Measurement.Result> results = new ArrayList<>();
    for (int r = 0; r < rows.size(); r++) {
      Arrays.sort(nanos[r]);
      results.add(
          new Measurement.Result(rows.get(r).name(), slice * rounds, total[r] / 1e9, nanos[r]));
    }
    return results;
  }

  /**
   * Waits until the holder has no record left to embed (discovery's {@code pending_embeddings}), at
   * most ten minutes; returns how long that took.
   */
  private static long untilEmbedded(McpStdioClient holder) throws InterruptedException {
    long started = System.nanoTime();
    long deadline = started + TimeUnit.MINUTES.toNanos(10);
    while (System.nanoTime() < deadline
        && holder
                .call("discover", Json.object())
                .path("retrieval")
                .path("index")
                .path("pending_embeddings")
                .asLong(0)
            > 0) {
      Thread.sleep(200);
    }
    return System.nanoTime() - started;
  }

  /** The read ratio, and the floor's: rows read via the holder, another process, bare, relay. */
  private static void readRatios(List<Measurement.Result> reads) {
    ratio("read", reads.get(0), reads.get(1));
    System.out.printf(
        Locale.ROOT,
        "  the floor, with no store: the same read through a bare relay process / answered"
            + " by a bare process: p50 %.2fx (SGM adds %.3f ms via the holder, %.3f ms via"
            + " another process)%n",
        reads.get(3).p50Millis() / reads.get(2).p50Millis(),
        reads.get(0).p50Millis() - reads.get(2).p50Millis(),
        reads.get(1).p50Millis() - reads.get(3).p50Millis());
  }

  private static void ratio(String what, Measurement.Result holder, Measurement.Result other) {
    System.out.printf(
        Locale.ROOT,
        "  %s through another process / through the holder: p50 %.2fx, throughput %.2fx"
            + " (target <= 2x)%n",
        what,
        other.p50Millis() / holder.p50Millis(),
        holder.opsPerSecond() / other.opsPerSecond());
  }

  static McpStdioClient session(String sgm, Path scratch, Path data, String agent)
      throws IOException {
    ProcessBuilder builder =
        new ProcessBuilder(
                sgm, "mcp", "--data", data.toString(), "--project", "bench", "--agent", agent)
            .redirectError(
                ProcessBuilder.Redirect.appendTo(scratch.resolve(agent + ".err").toFile()));
    builder.environment().put("XDG_CACHE_HOME", scratch.resolve("cache").toString());
    return new McpStdioClient(builder);
  }

  static void store(McpStdioClient session, int key) {
    ObjectNode record = Json.object();
    record.put("id", "r" + key).put("type", "note").put("content", "benchmark record " + key);
    ObjectNode request = Json.object();
    request.set("record", record);
    session.call("store", request);
  }

  private static void read(McpStdioClient session, int key) {
    session.call("read", readRequest(key));
  }

  private static ObjectNode readRequest(int key) {
    ObjectNode request = Json.object();
    request.put("id", "r" + (key % 1000));
    return request;
  }

  /** An MCP session with a process of {@link BareMcpRelay}. */
  private static McpStdioClient bare(List<String> command, Path scratch) throws IOException {
    return new McpStdioClient(
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.appendTo(scratch.resolve("bare.err").toFile())));
  }

  /** A session storing as fast as it is answered; remembers when each call began and ended. */
  private static final class Writer extends Thread {
    final McpStdioClient session;
    final List<long[]> answered = java.util.Collections.synchronizedList(new ArrayList<>());
    volatile boolean stopped;

    Writer(McpStdioClient session, String name) {
      super(name);
      this.session = session;
      setDaemon(true);
    }

    @Override
    public void run() {
      for (int n = 0; !stopped && session.process().isAlive(); n++) {
        long started = System.nanoTime();
        try {
          store(session, n + getName().hashCode() * 1_000_000);
          answered.add(new long[] {started, System.nanoTime()});
        } catch (SgmException e) {
          if (e.code() != ErrorCode.UNAVAILABLE) {
            throw e;
          }
        }
      }
    }

    long firstAnswerAfter(long since) {
      synchronized (answered) {
        for (long[] call : answered) {
          if (call[0] >= since) {
            return call[1];
          }
        }
      }
      return -1;
    }
  }

  static long holderPid(Path data) throws IOException {
    Object inode = Files.getAttribute(data.resolve("sgm.holder.lock"), "unix:ino");
    for (String line : Files.readAllLines(Path.of("/proc/locks"))) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length > 5 && fields[5].endsWith(":" + inode)) {
        return Long.parseLong(fields[4]);
      }
    }
    return -1;
  }

  private static void handOvers(String sgm, Path scratch, Path data, int cycles) throws Exception {
    List<Writer> writers = new ArrayList<>();
    long[] times = new long[cycles];
    try {
      for (int i = 0; i < 3; i++) {
        Writer writer = new Writer(session(sgm, scratch, data, "w" + i), "w" + i);
        writer.start();
        writers.add(writer);
      }
      for (int cycle = 0; cycle < cycles; cycle++) {
        Thread.sleep(1000);
        long pid = holderPid(data);
        Writer victim =
            writers.stream()
                .filter(w -> w.isAlive() && w.session.process().pid() == pid)
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no session holds " + data));
        long killed = System.nanoTime();
        victim.session.process().destroyForcibly();
        victim.stopped = true;
        long worst = 0;
        for (Writer survivor : writers) {
          if (survivor == victim || !survivor.isAlive() || survivor.stopped) {
            continue;
          }
          long answered;
          long deadline = killed + TimeUnit.SECONDS.toNanos(30);
          while ((answered = survivor.firstAnswerAfter(killed)) < 0
              && System.nanoTime() < deadline) {
            Thread.sleep(1);
          }
          worst = Math.max(worst, answered < 0 ? deadline - killed : answered - killed);
        }
        times[cycle] = worst;
        Writer joining = // a new session joins the load, as a client of the new holder
            new Writer(session(sgm, scratch, data, "w" + (3 + cycle)), "w" + (3 + cycle));
        joining.start();
        writers.add(joining);
      }
    } finally {
      for (Writer writer : writers) {
        writer.stopped = true;
        writer.session.close();
      }
    }
    Arrays.sort(times);
    System.out.printf(
        Locale.ROOT,
        "hand-over after SIGKILL of the holder, 3 sessions storing, %d cycles: p50 %.0f ms,"
            + " p99 %.0f ms, max %.0f ms (target <= 2000 ms)%n",
        cycles,
        Measurement.p50Millis(times),
        Measurement.p99Millis(times),
        times[cycles - 1] / 1e6);
  }
}
