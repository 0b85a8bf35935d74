package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import dev.sgm.api.StoreRequest;
import dev.sgm.bench.Measurement.Result;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Measures the engine on the embedded, durable H2 store (store, read by identity, a tag-filtered
 * and a full-text retrieve) against the same operations as raw JDBC on an H2 database with the same
 * durability settings: the physical limit of this design. Prints ops/s, p50 and p99 for each, and
 * the ratios.
 *
 * <p>Both stores are loaded first; then each operation is measured on both, alternating, three
 * rounds, and the best round of each is kept, so neither side profits from the other's JIT warm-up
 * or disk state. Records are spread over projects of 1000 records, as a memory shared by many
 * projects is; every query names one project.
 */
public final class CoreBenchmark {
  private static final int RECORDS_PER_PROJECT = 1000;
  private static final int VOCABULARY = 2000;
  private static final int TAGS = 20;
  private static final int ROUNDS = 3;
  private static final Caller CALLER = Caller.embedded();
  private static final List<String> OPERATIONS =
      List.of(
          "store (one per commit)",
          "read by identity",
          "retrieve by tag, limit 50",
          "retrieve full-text, limit 50");

  private final SplittableRandom random = new SplittableRandom(42);
  private final int projects;
  private final int operations;

  private CoreBenchmark(int records, int operations) {
    this.projects = Math.max(1, records / RECORDS_PER_PROJECT);
    this.operations = operations;
  }

  public static void main(String[] args) throws Exception {
    List<Integer> sizes =
        args.length == 0
            ? List.of(10_000, 1_000_000)
            : Arrays.stream(args).map(Integer::parseInt).toList();
    int operations = Integer.getInteger("sgm.bench.ops", 2000);
    List<Map<String, Result>> engineRuns = new ArrayList<>();
    for (int size : sizes) {
      engineRuns.add(new CoreBenchmark(size, operations).run(size));
    }
    if (sizes.size() > 1) {
      Map<String, Result> first = engineRuns.get(0);
      Map<String, Result> last = engineRuns.get(engineRuns.size() - 1);
      System.out.printf(
          Locale.ROOT,
          "%nGrowth of engine p50 from %,d to %,d records: tag retrieve %.2fx, full-text retrieve %.2fx"
              + " (target <= 3x)%n",
          sizes.get(0),
          sizes.get(sizes.size() - 1),
          last.get(OPERATIONS.get(2)).p50Millis() / first.get(OPERATIONS.get(2)).p50Millis(),
          last.get(OPERATIONS.get(3)).p50Millis() / first.get(OPERATIONS.get(3)).p50Millis());
    }
  }

  /** One side of the comparison: a loaded store and the four operations on it. */
  private interface Subject extends AutoCloseable {
    String name();

    Measurement.Op operation(String name);

    @Override
    void close() throws SQLException;
  }

  private Map<String, Result> run(int records) throws Exception {
    System.out.printf(Locale.ROOT, "%n%,d records in %,d projects%n", records, projects);
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-bench");
        Subject engine = engine(scratch.path().resolve("engine"));
        Subject raw = raw(scratch.path().resolve("raw"))) {
      Map<String, Result> bestEngine = new LinkedHashMap<>();
      Map<String, Result> bestRaw = new LinkedHashMap<>();
      int[] freshKeys = {0};
      for (String operation : OPERATIONS) {
        int count = operation.startsWith("read") ? operations * 25 : operations;
        for (int round = 0; round < ROUNDS; round++) {
          List<Subject> order = round % 2 == 0 ? List.of(engine, raw) : List.of(raw, engine);
          for (Subject subject : order) {
            Result result =
                Measurement.measure(operation, count, subject.operation(operation), freshKeys);
            Map<String, Result> best = subject == engine ? bestEngine : bestRaw;
            best.merge(operation, result, (a, b) -> a.opsPerSecond() >= b.opsPerSecond() ? a : b);
          }
        }
      }
      System.out.println("engine (best of " + ROUNDS + " rounds):");
      bestEngine.values().forEach(Result::print);
      System.out.println("raw JDBC, same H2 settings (best of " + ROUNDS + " rounds):");
      bestRaw.values().forEach(Result::print);
      System.out.printf(
          Locale.ROOT,
          "  ratio engine/raw JDBC: store %.2fx (target >= 0.5), read %.2fx (target >= 0.5),"
              + " tag retrieve %.2fx, full-text retrieve %.2fx%n",
          ratio(bestEngine, bestRaw, 0),
          ratio(bestEngine, bestRaw, 1),
          ratio(bestEngine, bestRaw, 2),
          ratio(bestEngine, bestRaw, 3));
      return bestEngine;
    }
  }

  private static double ratio(Map<String, Result> engine, Map<String, Result> raw, int operation) {
    String name = OPERATIONS.get(operation);
    return engine.get(name).opsPerSecond() / raw.get(name).opsPerSecond();
  }

  private String word() {
    // Skewed like natural text: low word numbers are common, high ones rare.
    double u = random.nextDouble();
    return "w" + (int) (VOCABULARY * u * u);
  }

  private String words(int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(i == 0 ? "" : " ").append(word());
    }
    return sb.toString();
  }

  private ObjectNode record(int project, String id) {
    ObjectNode r = Json.object();
    r.put("id", id);
    r.put("type", "note");
    r.putObject("scope").put("project", "p" + project);
    r.put("title", words(3));
    r.put("content", words(12));
    r.putArray("tags").add("t" + random.nextInt(TAGS)).add("t" + random.nextInt(TAGS));
    r.putObject("provenance").put("agent", "bench");
    r.putObject("data").put("state", random.nextBoolean() ? "open" : "done");
    return r;
  }

  private Subject engine(Path dir) {
    SgmRuntime sgm =
        SgmRuntime.open(ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()));
    long t0 = System.nanoTime();
    for (int p = 0; p < projects; p++) {
      List<JsonNode> batch = new ArrayList<>();
      for (int i = 0; i < RECORDS_PER_PROJECT; i++) {
        batch.add(record(p, "r" + i));
      }
      sgm.service().storeBatch(CALLER, new BatchStoreRequest(batch, false));
      if (p % 100 == 99) {
        System.out.printf(
            Locale.ROOT, "  engine: loaded %,d records%n", (p + 1) * RECORDS_PER_PROJECT);
      }
    }
    System.out.printf(Locale.ROOT, "  engine loaded in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    return new Subject() {
      @Override
      public String name() {
        return "engine";
      }

      @Override
      public Measurement.Op operation(String name) {
        return switch (OPERATIONS.indexOf(name)) {
          case 0 ->
              i ->
                  sgm.service()
                      .store(CALLER, StoreRequest.of(record(random.nextInt(projects), "new" + i)));
          case 1 ->
              i ->
                  sgm.service()
                      .read(
                          CALLER,
                          new ReadRequest(
                              Scope.of("project", "p" + random.nextInt(projects)),
                              "r" + random.nextInt(RECORDS_PER_PROJECT),
                              false));
          case 2 ->
              i ->
                  sgm.service()
                      .retrieve(
                          CALLER,
                          RetrieveQuery.builder(Scope.of("project", "p" + random.nextInt(projects)))
                              .tags(List.of("t" + random.nextInt(TAGS)))
                              .build());
          default ->
              i ->
                  sgm.service()
                      .retrieve(
                          CALLER,
                          RetrieveQuery.builder(Scope.of("project", "p" + random.nextInt(projects)))
                              .text("w" + random.nextInt(200))
                              .build());
        };
      }

      @Override
      public void close() {
        sgm.close();
      }
    };
  }

  /** The same rows, tags and terms, written and queried with plain JDBC and no engine. */
  private Subject raw(Path dir) throws Exception {
    Files.createDirectories(dir);
    String url = "jdbc:h2:file:" + dir.resolve("raw") + ";WRITE_DELAY=0;LOCK_TIMEOUT=10000";
    Connection c = DriverManager.getConnection(url, "sgm", "");
    try (Statement s = c.createStatement()) {
      s.execute(
          "CREATE TABLE raw (pk BIGINT PRIMARY KEY, scope_key VARCHAR(200), id VARCHAR(256),"
              + " updated_us BIGINT, doc CHARACTER VARYING, UNIQUE (scope_key, id))");
      s.execute("CREATE INDEX raw_updated ON raw(scope_key, updated_us, pk)");
      s.execute(
          "CREATE TABLE raw_tags (scope_key VARCHAR(200), tag VARCHAR(100), pk BIGINT,"
              + " PRIMARY KEY (scope_key, tag, pk))");
      s.execute(
          "CREATE TABLE raw_terms (scope_key VARCHAR(200), term VARCHAR(64), pk BIGINT,"
              + " PRIMARY KEY (scope_key, term, pk))");
    }
    long t0 = System.nanoTime();
    c.setAutoCommit(false);
    long[] pk = {0};
    for (int p = 0; p < projects; p++) {
      for (int i = 0; i < RECORDS_PER_PROJECT; i++) {
        insert(c, record(p, "r" + i), ++pk[0]);
      }
      c.commit();
    }
    System.out.printf(Locale.ROOT, "  raw JDBC loaded in %.1f s%n", (System.nanoTime() - t0) / 1e9);
    PreparedStatement read =
        c.prepareStatement("SELECT doc FROM raw WHERE scope_key = ? AND id = ?");
    PreparedStatement tags =
        c.prepareStatement(
            "SELECT r.doc FROM raw r JOIN raw_tags t ON t.pk = r.pk WHERE t.scope_key = ? AND t.tag = ?"
                + " ORDER BY r.updated_us DESC LIMIT 50");
    PreparedStatement text =
        c.prepareStatement(
            "SELECT r.doc FROM raw r JOIN raw_terms t ON t.pk = r.pk WHERE t.scope_key = ? AND t.term = ?"
                + " ORDER BY r.updated_us DESC LIMIT 50");
    return new Subject() {
      @Override
      public String name() {
        return "raw JDBC";
      }

      @Override
      public Measurement.Op operation(String name) {
        return switch (OPERATIONS.indexOf(name)) {
          case 0 ->
              i -> {
                insert(c, record(random.nextInt(projects), "new" + i), ++pk[0]);
                c.commit();
              };
          case 1 -> i -> query(read, "r" + random.nextInt(RECORDS_PER_PROJECT));
          case 2 -> i -> query(tags, "t" + random.nextInt(TAGS));
          default -> i -> query(text, "w" + random.nextInt(200));
        };
      }

      private void query(PreparedStatement ps, String key) throws SQLException {
        ps.setString(1, "project=p" + random.nextInt(projects));
        ps.setString(2, key);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            rs.getString(1);
          }
        }
      }

      @Override
      public void close() throws SQLException {
        c.close();
      }
    };
  }

  private void insert(Connection c, ObjectNode record, long pk) throws SQLException {
    String scopeKey = "project=" + record.path("scope").path("project").asText();
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO raw(pk, scope_key, id, updated_us, doc) VALUES (?, ?, ?, ?, ?)")) {
      ps.setLong(1, pk);
      ps.setString(2, scopeKey);
      ps.setString(3, record.path("id").asText());
      ps.setLong(4, System.nanoTime() / 1000);
      ps.setString(5, Json.write(record));
      ps.executeUpdate();
    }
    try (PreparedStatement ps =
        c.prepareStatement("MERGE INTO raw_tags KEY(scope_key, tag, pk) VALUES (?, ?, ?)")) {
      for (JsonNode tag : record.path("tags")) {
        ps.setString(1, scopeKey);
        ps.setString(2, tag.asText());
        ps.setLong(3, pk);
        ps.addBatch();
      }
      ps.executeBatch();
    }
    try (PreparedStatement ps =
        c.prepareStatement("MERGE INTO raw_terms KEY(scope_key, term, pk) VALUES (?, ?, ?)")) {
      for (String term :
          (record.path("title").asText() + " " + record.path("content").asText()).split(" ")) {
        ps.setString(1, scopeKey);
        ps.setString(2, term);
        ps.setLong(3, pk);
        ps.addBatch();
      }
      ps.executeBatch();
    }
  }
}
