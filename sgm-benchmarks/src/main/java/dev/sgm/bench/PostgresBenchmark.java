package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.spi.EmbedderProvider;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.transport.grpc.SgmGrpcClient;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server on PostgreSQL, against a throw-away cluster (started by {@code
 * ./sgm-benchmarks/run-postgres}):
 *
 * <ul>
 *   <li>{@code identity}: store and read by identity at 1 and 16 callers, the engine on PostgreSQL
 *       against raw JDBC writing the same rows and index entries (record, tag, write-sequence
 *       counter, change-log and version-log rows, in one transaction) on the same server with the
 *       same durability ({@code synchronous_commit} as the server has it), in turns (engine, raw,
 *       raw, engine; {@code -Dsgm.bench.identity-rounds} a side, 2). Target: at least 0.6x.
 *   <li>{@code nodes}: store throughput at 32 callers through two nodes on one database (16 callers
 *       each) against one node, with the machine's CPU use and the database server's share of it,
 *       which say whether the database (or the machine) is the bottleneck. Target: at least 1.6x
 *       where the database is not the bottleneck.
 *   <li>{@code nodes-capped}: the same over gRPC with each node a process of its own whose CPU a
 *       cgroup caps ({@code -Dsgm.bench.node-cores}, 0.3 by default; {@code CappedNode}): a node
 *       per machine, played on one machine, so that a second node brings CPU of its own while the
 *       database and the callers keep the rest. Needs {@code -Dsgm.bench.sgm} (the distribution's
 *       {@code bin/sgm}, which the script passes) and a writable cgroup cpu controller; the nodes
 *       first warm up until their JIT compilers settle ({@code warmUp}). Each round also says how
 *       long the cap held each node back, its compilers' CPU, and what the database's busy sessions
 *       were waiting for ({@code PgWaits}).
 *   <li>{@code retrieve N}: retrieve p50 with N records seeded, on PostgreSQL and on the embedded
 *       H2 store: a tag-filtered retrieve (answered by the storage's indexes) and a full-text one
 *       (the node's search index, then the rows from storage). Target: within 2x of H2's.
 * </ul>
 *
 * <p>Arguments: the cluster's JDBC URL (role {@code sgm}, password {@code sgm}), then the parts to
 * run (default {@code identity nodes retrieve 100000}). {@code -Dsgm.bench.seconds} per measurement
 * (default 5).
 */
public final class PostgresBenchmark {
  private static final Caller CALLER = Caller.embedded();
  private static final String USER = "sgm";
  private static final String PASSWORD = "sgm";
  private static final int PROJECTS = 10;
  private static final int PER_PROJECT = 1000;

  private PostgresBenchmark() {}

  public static void main(String[] args) throws Exception {
    String url = args[0];
    List<String> parts =
        args.length > 1
            ? List.of(args).subList(1, args.length)
            : List.of("identity", "nodes", "retrieve", "100000");
    int seconds = Integer.getInteger("sgm.bench.seconds", 5);
    System.out.println("PostgreSQL at " + url + ": " + setting(url, "server_version"));
    System.out.println(
        "synchronous_commit = "
            + setting(url, "synchronous_commit")
            + ", fsync = "
            + setting(url, "fsync")
            + " (the same server and settings for every side); "
            + Runtime.getRuntime().availableProcessors()
            + " CPUs; "
            + seconds
            + " s a measurement");
    for (int i = 0; i < parts.size(); i++) {
      switch (parts.get(i)) {
        case "identity" -> identity(url, seconds);
        case "nodes" -> nodes(url, seconds);
        case "nodes-capped" -> nodesCapped(url, seconds);
        case "retrieve" -> retrieve(url, Integer.parseInt(parts.get(++i).replace("_", "")));
        default -> throw new IllegalArgumentException("unknown part " + parts.get(i));
      }
    }
  }

  private static String setting(String url, String name) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, USER, PASSWORD);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW " + name)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /** A new, empty database on the cluster; its URL. */
  private static String newDatabase(String url, String name) throws SQLException {
    try (Connection c = DriverManager.getConnection(url, USER, PASSWORD);
        Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name);
      s.execute("CREATE DATABASE " + name);
    }
    return url.substring(0, url.lastIndexOf('/') + 1) + name;
  }

  private static SgmRuntime node(String databaseUrl, Path data) {
    Map<String, String> options = new HashMap<>();
    options.put("storage", "postgres");
    options.put("storage.postgres.url", databaseUrl);
    options.put("storage.postgres.user", USER);
    options.put("storage.postgres.password", PASSWORD);
    return open(options, data);
  }

  private static SgmRuntime open(Map<String, String> settings, Path data) {
    Map<String, String> options = new HashMap<>(settings);
    options.put(ConfigLoader.DATA_DIR, data.toString());
    List<String> embedders =
        ServiceLoader.load(EmbedderProvider.class).stream().map(p -> p.get().name()).toList();
    if (!embedders.isEmpty()) {
      // The figures are the storage's: no embedding work on either side.
      options.put("embedders.disabled", String.join(",", embedders));
    }
    return SgmRuntime.open(ConfigLoader.load(options, Map.of()));
  }

  // ---- identity: the engine against raw JDBC -------------------------------------------------

  private static void identity(String url, int seconds) throws Exception {
    System.out.println();
    System.out.println(
        "store and read by identity: engine on PostgreSQL vs raw JDBC (same rows, same server)");
    String engineDb = newDatabase(url, "bench_engine");
    String rawDb = newDatabase(url, "bench_raw");
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-pg-bench")) {
      // The raw side gets the very schema the storage migrates to, indexes included.
      try (SgmRuntime schemaOnly = node(rawDb, scratch.path().resolve("schema"))) {
        schemaOnly.storageDescription();
      }
      try (SgmRuntime sgm = node(engineDb, scratch.path().resolve("engine"));
          PgRawJdbc raw = new PgRawJdbc(rawDb, USER, PASSWORD, PROJECTS, PER_PROJECT)) {
        Callers.preload(sgm, PROJECTS, PER_PROJECT);
        raw.preload();
        AtomicLong sequence = new AtomicLong();
        System.out.printf(
            Locale.ROOT,
            "  %-24s %12s %12s %8s   %s%n",
            "",
            "engine /s",
            "raw JDBC /s",
            "ratio",
            "p50 engine / raw");
        for (String op : List.of("store", "read")) {
          for (int callers : new int[] {1, 16}) {
            Callers.Call engineCall =
                op.equals("store")
                    ? Callers.inProcessStore(sgm, "c" + callers)
                    : Callers.inProcessRead(sgm, PROJECTS, PER_PROJECT);
            Callers.Call rawCall = op.equals("store") ? raw::store : n -> raw.read(n);
            // In turns, engine, raw, raw, engine, ...: the disk's flush time drifts by half
            // within minutes here, and one measurement a side would put that drift into the
            // ratio.
            List<Callers.Load> engine = new ArrayList<>();
            List<Callers.Load> direct = new ArrayList<>();
            StringBuilder rounds = new StringBuilder();
            for (int round = 0; round < 2 * IDENTITY_ROUNDS; round++) {
              boolean engineRound = !Measurement.secondSide(round);
              Callers.Load load =
                  Callers.loadInProcess(
                      engineRound ? engineCall : rawCall, callers, seconds, sequence);
              (engineRound ? engine : direct).add(load);
              rounds.append(
                  String.format(
                      Locale.ROOT,
                      " %s %.0f",
                      engineRound ? "engine" : "raw",
                      load.callsPerSecond()));
            }
            double engineRate = meanRate(engine);
            double directRate = meanRate(direct);
            System.out.printf(
                Locale.ROOT,
                "  %-24s %12.0f %12.0f %7.2fx   %.3f / %.3f ms  (target >= 0.6x; rounds:%s)%n",
                op + ", " + callers + " caller" + (callers == 1 ? "" : "s"),
                engineRate,
                directRate,
                engineRate / directRate,
                medianP50(engine),
                medianP50(direct),
                rounds);
          }
        }
      }
    }
  }

  /** Rounds a side of each identity measurement ({@code -Dsgm.bench.identity-rounds}, 2). */
  private static final int IDENTITY_ROUNDS =
      Math.max(1, Integer.getInteger("sgm.bench.identity-rounds", 2));

  /** The rate over rounds of equal length. */
  private static double meanRate(List<Callers.Load> rounds) {
    return rounds.stream().mapToDouble(Callers.Load::callsPerSecond).average().orElse(0);
  }

  /** The median of the rounds' p50s. */
  private static double medianP50(List<Callers.Load> rounds) {
    double[] p50s = rounds.stream().mapToDouble(Callers.Load::p50Millis).sorted().toArray();
    int n = p50s.length;
    return n % 2 == 1 ? p50s[n / 2] : (p50s[n / 2 - 1] + p50s[n / 2]) / 2;
  }

  // ---- nodes: two nodes on one database against one -----------------------------------------

  private static void nodes(String url, int seconds) throws Exception {
    System.out.println();
    System.out.println("store throughput at 32 callers: two nodes on one database vs one node");
    String db = newDatabase(url, "bench_nodes");
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-pg-nodes");
        SgmRuntime a = node(db, scratch.path().resolve("a"));
        SgmRuntime b = node(db, scratch.path().resolve("b"))) {
      AtomicLong sequence = new AtomicLong();
      MachineCpu before = MachineCpu.now();
      Callers.Load one =
          Callers.loadInProcess(Callers.inProcessStore(a, "one"), 32, seconds, sequence);
      MachineCpu afterOne = MachineCpu.now();
      Callers.Call alternate =
          n ->
              (n % 2 == 0 ? Callers.inProcessStore(a, "two") : Callers.inProcessStore(b, "two"))
                  .run(n);
      Callers.Load two = Callers.loadInProcess(alternate, 32, seconds, sequence);
      MachineCpu afterTwo = MachineCpu.now();
      System.out.printf(
          Locale.ROOT,
          "  one node:  %8.0f stores/s  p50 %.2f ms  p99 %.2f ms   %s%n",
          one.callsPerSecond(),
          one.p50Millis(),
          one.p99Millis(),
          afterOne.since(before));
      System.out.printf(
          Locale.ROOT,
          "  two nodes: %8.0f stores/s  p50 %.2f ms  p99 %.2f ms   %s%n",
          two.callsPerSecond(),
          two.p50Millis(),
          two.p99Millis(),
          afterTwo.since(afterOne));
      System.out.printf(
          Locale.ROOT,
          "  two nodes / one node: %.2fx (target >= 1.6x where the database is not the"
              + " bottleneck)%n",
          two.callsPerSecond() / one.callsPerSecond());
      System.out.println(
          "  (both nodes run in this JVM on this machine, beside the database server: on a"
              + " machine whose CPUs are busy with one node, a second node has nothing to run on)");
    }
  }

  // ---- nodes-capped: the same with each node a process capped at a share of a core ------------

  private static void nodesCapped(String url, int seconds) throws Exception {
    System.out.println();
    double cores = Double.parseDouble(System.getProperty("sgm.bench.node-cores", "0.3"));
    System.out.printf(
        Locale.ROOT,
        "store throughput at 32 callers over gRPC: two nodes on one database vs one node, each"
            + " node a process capped at %.2f of a core by a cgroup (a node on a machine of its"
            + " own; the database and the callers share the rest)%n",
        cores);
    String sgm = System.getProperty("sgm.bench.sgm");
    String unavailable =
        sgm == null ? "-Dsgm.bench.sgm names no bin/sgm to start" : CappedNode.unavailable();
    if (unavailable != null) {
      System.out.println("  skipped: " + unavailable);
      return;
    }
    String db = newDatabase(url, "bench_capped");
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-pg-capped");
        CappedNode a = new CappedNode(sgm, scratch.path().resolve("a"), db, USER, PASSWORD, cores);
        CappedNode b = new CappedNode(sgm, scratch.path().resolve("b"), db, USER, PASSWORD, cores);
        SgmGrpcClient toA = new SgmGrpcClient(a.grpcTarget());
        SgmGrpcClient toB = new SgmGrpcClient(b.grpcTarget())) {
      AtomicLong sequence = new AtomicLong();
      Callers.Call one = n -> toA.call("store", storeOf("one", n));
      Callers.Call both = n -> (n % 2 == 0 ? toA : toB).call("store", storeOf("two", n));
      warmUp(a, b, both, cores, sequence);
      // one, two, two, one: the store rate drifts as the tables grow, and this order cancels it.
      double[] rates = new double[2];
      for (int round = 0; round < 4; round++) {
        boolean twoNodes = Measurement.secondSide(round);
        MachineCpu before = MachineCpu.now();
        long aBefore = a.cpuTicks();
        long bBefore = b.cpuTicks();
        long aHeld = a.throttledMillis();
        long bHeld = b.throttledMillis();
        long aCompiling = a.compilerTicks();
        long bCompiling = b.compilerTicks();
        Callers.Load load;
        String waits;
        try (PgWaits sessions = new PgWaits(db, USER, PASSWORD)) {
          load = Callers.load(twoNodes ? both : one, 32, seconds, sequence);
          waits = sessions.summary();
        }
        MachineCpu after = MachineCpu.now();
        double wall = (after.wallNanos() - before.wallNanos()) / 1e9;
        rates[twoNodes ? 1 : 0] += load.callsPerSecond() / 2;
        System.out.printf(
            Locale.ROOT,
            "  %-9s %8.0f stores/s  p50 %.2f ms  p99 %.2f ms   node a %.2f cores (held back by"
                + " its cap %.0f ms/s, compiling %.3f), node b %.2f (%.0f ms/s, %.3f); %s%n",
            twoNodes ? "two nodes" : "one node",
            load.callsPerSecond(),
            load.p50Millis(),
            load.p99Millis(),
            (a.cpuTicks() - aBefore) / 100.0 / wall,
            (a.throttledMillis() - aHeld) / wall,
            (a.compilerTicks() - aCompiling) / 100.0 / wall,
            (b.cpuTicks() - bBefore) / 100.0 / wall,
            (b.throttledMillis() - bHeld) / wall,
            (b.compilerTicks() - bCompiling) / 100.0 / wall,
            after.since(before).replace("this JVM", "callers"));
        System.out.println("            in the database: " + waits);
      }
      System.out.printf(
          Locale.ROOT,
          "  two nodes / one node: %.2fx (target >= 1.6x where the database is not the"
              + " bottleneck)%n",
          rates[1] / rates[0]);
    }
  }

  /**
   * Stores through both nodes for {@code -Dsgm.bench.warm-up} seconds (180), then on in slices of
   * 30 s until each node's JIT compilers used under a twentieth of its cap in the last slice, or
   * until {@code -Dsgm.bench.warm-up-max} seconds (900). Under a cap of 0.3 of a core the compilers
   * still took 0.10 to 0.18 cores of it after three minutes, in the timed rounds too, and settled
   * after about six: rounds measured earlier timed the JIT as much as the nodes.
   */
  private static void warmUp(
      CappedNode a, CappedNode b, Callers.Call both, double cores, AtomicLong sequence)
      throws Exception {
    int least = Integer.getInteger("sgm.bench.warm-up", 180);
    int most = Math.max(least, Integer.getInteger("sgm.bench.warm-up-max", 900));
    int slice = 30;
    Callers.run(Thread.ofPlatform(), both, 32, least, sequence, null);
    int done = least;
    while (true) {
      long aBefore = a.compilerTicks();
      long bBefore = b.compilerTicks();
      long started = System.nanoTime();
      int seconds = Math.min(slice, most - done);
      if (seconds <= 0) {
        System.out.printf(
            Locale.ROOT,
            "  warm-up: %d s, and the compilers had not settled (-Dsgm.bench.warm-up-max)%n",
            done);
        return;
      }
      Callers.run(Thread.ofPlatform(), both, 32, seconds, sequence, null);
      done += seconds;
      double wall = (System.nanoTime() - started) / 1e9;
      double aCores = (a.compilerTicks() - aBefore) / 100.0 / wall;
      double bCores = (b.compilerTicks() - bBefore) / 100.0 / wall;
      if (Math.max(aCores, bCores) < cores / 20) {
        System.out.printf(
            Locale.ROOT,
            "  warm-up: %d s, until the compilers used %.3f and %.3f cores in the last %d s%n",
            done,
            aCores,
            bCores,
            seconds);
        return;
      }
    }
  }

  /** A store request of the new record {@code n} of a run ({@link Callers#loadRecord}). */
  private static ObjectNode storeOf(String run, long n) {
    ObjectNode request = Json.object();
    request.set("record", Callers.loadRecord(run, n));
    return request;
  }

  // ---- retrieve: PostgreSQL against H2 at one size ----------------------------------------------

  private static void retrieve(String url, int records) throws Exception {
    System.out.println();
    System.out.printf(
        Locale.ROOT,
        "retrieve p50 with %,d records (projects of 1,000; each query names one project)%n",
        records);
    String db = newDatabase(url, "bench_retrieve");
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-pg-retrieve")) {
      Map<String, double[]> p50 = new HashMap<>();
      for (String side : List.of("postgres", "h2")) {
        try (SgmRuntime sgm =
            side.equals("postgres")
                ? node(db, scratch.path().resolve("pg"))
                : open(Map.of(), scratch.path().resolve("h2"))) {
          seed(sgm, records, side);
          if (side.equals("postgres")) {
            settle(db);
          }
          awaitText(sgm, records);
          double tag = measureRetrieve(sgm, false, records);
          double text = measureRetrieve(sgm, true, records);
          p50.put(side, new double[] {tag, text});
        }
      }
      double[] pg = p50.get("postgres");
      double[] h2 = p50.get("h2");
      System.out.printf(
          Locale.ROOT,
          "  by tag:    PostgreSQL p50 %.3f ms, H2 %.3f ms: %.2fx of H2's (target <= 2x)%n",
          pg[0],
          h2[0],
          pg[0] / h2[0]);
      System.out.printf(
          Locale.ROOT,
          "  full text: PostgreSQL p50 %.3f ms, H2 %.3f ms: %.2fx of H2's (target <= 2x)%n",
          pg[1],
          h2[1],
          pg[1] / h2[1]);
    }
  }

  private static void seed(SgmRuntime sgm, int records, String side) {
    long t0 = System.nanoTime();
    List<JsonNode> batch = new ArrayList<>();
    AgentNotes notes = new AgentNotes(42);
    for (int i = 0; i < records; i++) {
      ObjectNode r = Json.object();
      r.put("id", "n" + i);
      r.put("type", "note");
      r.putObject("scope").put("project", "p" + i / 1000);
      r.put("content", "For the release: " + notes.next());
      r.putArray("tags").add("t" + i % 10);
      r.putObject("provenance").put("agent", "bench");
      batch.add(r);
      if (batch.size() == BatchStoreRequest.MAX_RECORDS || i == records - 1) {
        sgm.service().storeBatch(CALLER, new BatchStoreRequest(batch, false));
        batch = new ArrayList<>();
      }
    }
    System.out.printf(
        Locale.ROOT,
        "  %s: seeded %,d records in %.0f s%n",
        side,
        records,
        (System.nanoTime() - t0) / 1e9);
  }

  /**
   * Vacuums and analyses the database after its bulk load, which autovacuum would otherwise do
   * while the queries are timed: the figures are of a database at rest, as a team's would be.
   */
  private static void settle(String db) throws SQLException {
    long t0 = System.nanoTime();
    try (Connection c = DriverManager.getConnection(db, USER, PASSWORD);
        java.sql.Statement s = c.createStatement()) {
      s.execute("VACUUM ANALYZE");
    }
    System.out.printf(
        Locale.ROOT,
        "  postgres: VACUUM ANALYZE after the load, %.0f s%n",
        (System.nanoTime() - t0) / 1e9);
  }

  /** Waits until the search index has every record (the last one stored is found by text). */
  private static void awaitText(SgmRuntime sgm, int records) throws InterruptedException {
    long deadline = System.nanoTime() + 600_000_000_000L;
    String project = "p" + (records - 1) / 1000;
    while (System.nanoTime() < deadline) {
      ObjectNode q = Json.object();
      q.putObject("scope").put("project", project);
      q.putArray("ids").add("n" + (records - 1));
      q.put("text", "release");
      q.put("mode", "text");
      JsonNode found = sgm.service().invoke(CALLER, "retrieve", q);
      if (found.path("records").size() > 0) {
        return;
      }
      Thread.sleep(200);
    }
  }

  private static double measureRetrieve(SgmRuntime sgm, boolean text, int records) {
    int projects = Math.max(1, records / 1000);
    int ops = Integer.getInteger("sgm.bench.ops", 2000);
    long[] nanos = new long[ops];
    for (int i = -Math.min(500, ops); i < ops; i++) {
      ThreadLocalRandom random = ThreadLocalRandom.current();
      ObjectNode q = Json.object();
      q.putObject("scope").put("project", "p" + random.nextInt(projects));
      if (text) {
        q.put("text", "release");
        q.put("mode", "text");
      } else {
        q.putArray("tags").add("t" + random.nextInt(10));
      }
      q.put("limit", 10);
      long t0 = System.nanoTime();
      JsonNode found = sgm.service().invoke(CALLER, "retrieve", q);
      if (i >= 0) {
        nanos[i] = System.nanoTime() - t0;
      }
      if (!text && found.path("records").isEmpty()) {
        throw new IllegalStateException("the tag query found nothing: " + Json.write(q));
      }
    }
    Arrays.sort(nanos);
    return Measurement.p50Millis(nanos);
  }
}
