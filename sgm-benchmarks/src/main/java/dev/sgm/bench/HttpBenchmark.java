package dev.sgm.bench;

import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.transport.http.HttpSettings;
import dev.sgm.transport.http.HttpTransport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Loads the HTTP transport with {@code wrk} (Debian's package) at 1, 16 and 128 connections: reads
 * and stores on the durable embedded store, and the same requests against a trivial handler on the
 * same server configuration, the transport's own limit. Prints requests/s, p50 and p99, and the
 * ratios; and the same reads and stores made in process, without a transport ({@link Callers}), as
 * a second ratio. Both servers are warmed up first ({@code -Dsgm.bench.warmup}, seconds per server
 * and operation pair, default 30), so the figures are steady state.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-http} (needs {@code wrk} on the PATH).
 */
public final class HttpBenchmark {
  private static final int PROJECTS = 10;
  private static final int PER_PROJECT = 1000;

  private HttpBenchmark() {}

  /** What wrk measured. */
  record Load(double requestsPerSecond, double p50Millis, double p99Millis, long errors) {}

  public static void main(String[] args) throws Exception {
    int seconds = Integer.getInteger("sgm.bench.seconds", 10);
    int warmup = Integer.getInteger("sgm.bench.warmup", 30);
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-http-bench")) {
      Path dir = scratch.path();
      Path scripts = writeScripts(dir);
      Map<String, String> options =
          Map.of(
              ConfigLoader.DATA_DIR,
              dir.resolve("data").toString(),
              "http.port",
              "0",
              "http.log-requests",
              "false",
              "transports.enabled",
              "http");
      try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
        Callers.preload(sgm, PROJECTS, PER_PROJECT);
        HttpTransport server = (HttpTransport) sgm.startTransports().get(0);
        HttpSettings same = new HttpSettings("127.0.0.1", 0, 4L * 1024 * 1024, false, 10_000);
        try (Transport baseline = new HttpTransport(same, new TrivialHandler())) {
          baseline.start();
          int basePort = ((HttpTransport) baseline).port();
          measure(sgm, server.port(), basePort, scripts, seconds, warmup);
        }
      }
    }
  }

  /**
   * Warms both servers and the in-process calls up, then prints a row for each operation at each
   * number of connections: SGM's server against the trivial handler's, and against in process.
   */
  private static void measure(
      SgmRuntime sgm, int sgmPort, int basePort, Path scripts, int seconds, int warmup)
      throws Exception {
    // The JIT takes tens of seconds of load to compile the storage and server paths; without
    // a warm-up the first rows would measure the interpreter rather than steady state.
    System.out.printf(
        Locale.ROOT, "warming up: %d s of reads and stores on each server%n", 2 * warmup);
    AtomicLong sequence = new AtomicLong();
    String run = Long.toString(System.nanoTime(), 36);
    Callers.Call inProcessRead = Callers.inProcessRead(sgm, PROJECTS, PER_PROJECT);
    Callers.Call inProcessStore = Callers.inProcessStore(sgm, run);
    for (String op : List.of("read", "store")) {
      Path script = scripts.resolve(op + ".lua");
      wrk(basePort, script, 16, warmup / 2);
      wrk(sgmPort, script, 16, warmup / 2);
    }
    Callers.run(Thread.ofVirtual(), inProcessRead, 16, warmup / 4, sequence, null);
    Callers.run(Thread.ofVirtual(), inProcessStore, 16, warmup / 4, sequence, null);
    System.out.printf(
        Locale.ROOT,
        "wrk, %d s per run; records preloaded: %,d%n",
        seconds,
        PROJECTS * PER_PROJECT);
    System.out.printf(
        Locale.ROOT,
        "%-6s %-5s %14s %10s %10s %16s %10s %8s %14s %11s%n",
        "op",
        "conns",
        "sgm req/s",
        "p50 ms",
        "p99 ms",
        "trivial req/s",
        "p99 ms",
        "ratio",
        "in-process/s",
        "vs in-proc");
    for (String op : List.of("read", "store")) {
      for (int connections : new int[] {1, 16, 128}) {
        Path script = scripts.resolve(op + ".lua");
        Load trivial = wrk(basePort, script, connections, seconds);
        Load real = wrk(sgmPort, script, connections, seconds);
        Callers.Load inProcess =
            Callers.loadInProcess(
                op.equals("read") ? inProcessRead : inProcessStore, connections, seconds, sequence);
        System.out.printf(
            Locale.ROOT,
            "%-6s %-5d %14.0f %10.2f %10.2f %16.0f %10.2f %7.2fx %14.0f %10.2fx%s%n",
            op,
            connections,
            real.requestsPerSecond(),
            real.p50Millis(),
            real.p99Millis(),
            trivial.requestsPerSecond(),
            trivial.p99Millis(),
            real.requestsPerSecond() / trivial.requestsPerSecond(),
            inProcess.callsPerSecond(),
            real.requestsPerSecond() / inProcess.callsPerSecond(),
            real.errors() > 0 ? "  (" + real.errors() + " errors)" : "");
      }
    }
    System.out.println(
        "targets: read >= 0.6x, store >= 0.5x of the trivial handler (\"ratio\"); \"vs"
            + " in-proc\" compares with the same calls made in process, without a transport");
  }

  private static Path writeScripts(Path dir) throws IOException {
    Path scripts = Files.createDirectories(dir.resolve("scripts"));
    Files.writeString(
        scripts.resolve("read.lua"),
        """
        local headers = {["Content-Type"] = "application/json"}
        request = function()
          local body = string.format('{"scope":{"project":"p%d"},"id":"r%d"}',
            math.random(0, MAX_PROJECT), math.random(0, MAX_ID))
          return wrk.format("POST", "/v1/read", headers, body)
        end
        """
            .replace("MAX_PROJECT", Integer.toString(PROJECTS - 1))
            .replace("MAX_ID", Integer.toString(PER_PROJECT - 1)));
    Files.writeString(
        scripts.resolve("store.lua"),
        """
        local headers = {["Content-Type"] = "application/json"}
        local counter = 0
        local threads = 0
        -- Every wrk thread of every run writes records of its own: the run's nonce and the thread.
        setup = function(thread)
          threads = threads + 1
          thread:set("tid", threads)
        end
        init = function(args) prefix = args[1] .. "-" .. tid end
        request = function()
          counter = counter + 1
          local body = string.format('{"record":{"id":"w%s-%d","type":"note",' ..
            '"scope":{"project":"load"},"content":"a record written under load","tags":["bench"],' ..
            '"provenance":{"agent":"wrk"}}}', prefix, counter)
          return wrk.format("POST", "/v1/store", headers, body)
        end
        """);
    return scripts;
  }

  private static Load wrk(int port, Path script, int connections, int seconds) throws Exception {
    Process wrk =
        new ProcessBuilder(
                "wrk",
                "-t" + Math.min(connections, 2),
                "-c" + connections,
                "-d" + seconds + "s",
                "--latency",
                "-s",
                script.toString(),
                "http://127.0.0.1:" + port,
                "--",
                Long.toString(System.nanoTime(), 36))
            .redirectErrorStream(true)
            .start();
    String out = new String(wrk.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (wrk.waitFor() != 0) {
      throw new IllegalStateException("wrk failed:\n" + out);
    }
    return new Load(
        number(out, "Requests/sec:\\s+([0-9.]+)"),
        millis(out, "50%"),
        millis(out, "99%"),
        (long)
            (number(out, "Non-2xx or 3xx responses:\\s+([0-9]+)", 0)
                + number(out, "Socket errors:.*?timeout ([0-9]+)", 0)));
  }

  private static double millis(String out, String percentile) {
    Matcher m = Pattern.compile("\\s" + percentile + "\\s+([0-9.]+)(us|ms|s)").matcher(out);
    if (!m.find()) {
      throw new IllegalStateException("no " + percentile + " latency in wrk's output:\n" + out);
    }
    double value = Double.parseDouble(m.group(1));
    return switch (m.group(2)) {
      case "us" -> value / 1000;
      case "s" -> value * 1000;
      default -> value;
    };
  }

  private static double number(String out, String regex) {
    Matcher m = Pattern.compile(regex).matcher(out);
    if (!m.find()) {
      throw new IllegalStateException("'" + regex + "' not in wrk's output:\n" + out);
    }
    return Double.parseDouble(m.group(1));
  }

  private static double number(String out, String regex, double absent) {
    Matcher m = Pattern.compile(regex).matcher(out);
    return m.find() ? Double.parseDouble(m.group(1)) : absent;
  }

  /** Reads the body and answers a fixed small JSON object: the cost of HTTP alone. */
  private static final class TrivialHandler extends Handler.Abstract {
    private static final byte[] OK = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      try (var in = Content.Source.asInputStream(request)) {
        in.readAllBytes();
      }
      response.setStatus(200);
      response.getHeaders().put("Content-Type", "application/json");
      response.write(true, ByteBuffer.wrap(OK), callback);
      return true;
    }
  }
}
