package dev.sgm.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import dev.sgm.api.StoreRequest;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.io.IOException;
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
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Stream;

/**
 * Measures the engine on the embedded, durable H2 store (store, read by identity, a tag-filtered
 * and a full-text retrieve) and the same operations as raw JDBC on an H2 database with the same
 * durability settings, the physical limit of this design. Prints ops/s, p50 and p99 for each, and
 * the ratios.
 *
 * <p>Run: {@code ./sgm-benchmarks/run [records ...]} (default 10000 1000000). Data is spread over
 * projects of 1000 records each, as a shared memory for many projects is; every query names one
 * project.
 */
public final class CoreBenchmark {
  private static final int RECORDS_PER_PROJECT = 1000;
  private static final int VOCABULARY = 2000;
  private static final int TAGS = 20;
  private static final Caller CALLER = Caller.embedded();

  private final SplittableRandom random = new SplittableRandom(42);
  private final int records;
  private final int projects;
  private final int operations;

  private CoreBenchmark(int records, int operations) {
    this.records = records;
    this.projects = Math.max(1, records / RECORDS_PER_PROJECT);
    this.operations = operations;
  }

  public static void main(String[] args) throws Exception {
    List<Integer> sizes =
        args.length == 0
            ? List.of(10_000, 1_000_000)
            : Arrays.stream(args).map(Integer::parseInt).toList();
    int operations = Integer.getInteger("sgm.bench.ops", 2000);
    List<Result[]> all = new ArrayList<>();
    for (int size : sizes) {
      all.add(new CoreBenchmark(size, operations).run());
    }
    if (sizes.size() > 1) {
      Result[] first = all.get(0);
      Result[] last = all.get(all.size() - 1);
      System.out.printf(
          Locale.ROOT,
          "%nGrowth of p50 from %,d to %,d records: tag retrieve %.2fx, text retrieve %.2fx (target <= 3x)%n",
          sizes.get(0),
          sizes.get(sizes.size() - 1),
          last[2].p50Millis() / first[2].p50Millis(),
          last[3].p50Millis() / first[3].p50Millis());
    }
  }

  /** One measured operation. */
  record Result(String name, int count, double seconds, long[] nanos) {
    double opsPerSecond() {
      return count / seconds;
    }

    double p50Millis() {
      return nanos[nanos.length / 2] / 1e6;
    }

    double p99Millis() {
      return nanos[(int) Math.min(nanos.length - 1, Math.ceil(nanos.length * 0.99) - 1)] / 1e6;
    }

    void print() {
      System.out.printf(
          Locale.ROOT,
          "  %-28s %9.0f ops/s   p50 %7.3f ms   p99 %7.3f ms%n",
          name,
          opsPerSecond(),
          p50Millis(),
          p99Millis());
    }
  }

  private interface Op {
    void run(int i) throws Exception;
  }

  private static Result measure(String name, int count, Op op) throws Exception {
    // Warm-up lets the JIT compile the path first; negative indexes keep the keys fresh for stores.
    for (int i = 0; i < Math.max(2000, count / 5); i++) {
      op.run(-1 - i);
    }
    long[] nanos = new long[count];
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      long t0 = System.nanoTime();
      op.run(i);
      nanos[i] = System.nanoTime() - t0;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    Arrays.sort(nanos);
    Result result = new Result(name, count, seconds, nanos);
    result.print();
    return result;
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

  private Result[] run() throws Exception {
    System.out.printf(Locale.ROOT, "%n%,d records in %,d projects%n", records, projects);
    Path dir = Files.createTempDirectory("sgm-bench");
    try {
      Result[] sgm = runEngine(dir.resolve("engine"));
      Result[] raw = runRawJdbc(dir.resolve("raw"));
      System.out.printf(
          Locale.ROOT,
          "  ratio engine/raw JDBC: store %.2fx (target >= 0.5), read %.2fx (target >= 0.5),"
              + " tag retrieve %.2fx, text retrieve %.2fx%n",
          sgm[0].opsPerSecond() / raw[0].opsPerSecond(),
          sgm[1].opsPerSecond() / raw[1].opsPerSecond(),
          sgm[2].opsPerSecond() / raw[2].opsPerSecond(),
          sgm[3].opsPerSecond() / raw[3].opsPerSecond());
      return sgm;
    } finally {
      deleteTree(dir);
    }
  }

  private Result[] runEngine(Path dir) throws Exception {
    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()))) {
      long t0 = System.nanoTime();
      for (int p = 0; p < projects; p++) {
        List<com.fasterxml.jackson.databind.JsonNode> batch = new ArrayList<>();
        for (int i = 0; i < RECORDS_PER_PROJECT; i++) {
          batch.add(record(p, "r" + i));
        }
        sgm.service().storeBatch(CALLER, new BatchStoreRequest(batch, false));
        if (p % 100 == 99) {
          System.out.printf(Locale.ROOT, "  loaded %,d records%n", (p + 1) * RECORDS_PER_PROJECT);
        }
      }
      System.out.printf(
          Locale.ROOT, "engine (loaded in %.1f s):%n", (System.nanoTime() - t0) / 1e9);
      Result store =
          measure(
              "store (one per commit)",
              operations,
              i ->
                  sgm.service()
                      .store(CALLER, StoreRequest.of(record(random.nextInt(projects), "new" + i))));
      Result read =
          measure(
              "read by identity",
              operations * 25,
              i ->
                  sgm.service()
                      .read(
                          CALLER,
                          new ReadRequest(
                              Scope.of("project", "p" + random.nextInt(projects)),
                              "r" + random.nextInt(RECORDS_PER_PROJECT),
                              false)));
      Result tags =
          measure(
              "retrieve by tag, limit 50",
              operations,
              i ->
                  sgm.service()
                      .retrieve(
                          CALLER,
                          RetrieveQuery.builder(Scope.of("project", "p" + random.nextInt(projects)))
                              .tags(List.of("t" + random.nextInt(TAGS)))
                              .build()));
      Result text =
          measure(
              "retrieve full-text, limit 50",
              operations,
              i ->
                  sgm.service()
                      .retrieve(
                          CALLER,
                          RetrieveQuery.builder(Scope.of("project", "p" + random.nextInt(projects)))
                              .text("w" + random.nextInt(200))
                              .build()));
      return new Result[] {store, read, tags, text};
    }
  }

  /** The same rows, tags and terms, written and queried with plain JDBC and no engine. */
  private Result[] runRawJdbc(Path dir) throws Exception {
    Files.createDirectories(dir);
    String url = "jdbc:h2:file:" + dir.resolve("raw") + ";WRITE_DELAY=0;LOCK_TIMEOUT=10000";
    try (Connection c = DriverManager.getConnection(url, "sgm", "")) {
      try (Statement s = c.createStatement()) {
        s.execute(
            "CREATE TABLE raw (pk BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
                + " scope_key VARCHAR(200), id VARCHAR(256), updated_us BIGINT, doc CHARACTER VARYING,"
                + " UNIQUE (scope_key, id))");
        s.execute("CREATE INDEX raw_updated ON raw(scope_key, updated_us, pk)");
        s.execute(
            "CREATE TABLE raw_tags (scope_key VARCHAR(200), tag VARCHAR(100), pk BIGINT, PRIMARY KEY (scope_key, tag, pk))");
        s.execute(
            "CREATE TABLE raw_terms (scope_key VARCHAR(200), term VARCHAR(64), pk BIGINT, PRIMARY KEY (scope_key, term, pk))");
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
      c.setAutoCommit(true);
      System.out.printf(
          Locale.ROOT, "raw JDBC (loaded in %.1f s):%n", (System.nanoTime() - t0) / 1e9);
      Result store =
          measure(
              "store (one per commit)",
              operations,
              i -> {
                c.setAutoCommit(false);
                insert(c, record(random.nextInt(projects), "new" + i), ++pk[0]);
                c.commit();
                c.setAutoCommit(true);
              });
      Result read;
      try (PreparedStatement ps =
          c.prepareStatement("SELECT doc FROM raw WHERE scope_key = ? AND id = ?")) {
        read =
            measure(
                "read by identity",
                operations * 25,
                i -> {
                  ps.setString(1, "project=p" + random.nextInt(projects));
                  ps.setString(2, "r" + random.nextInt(RECORDS_PER_PROJECT));
                  drain(ps);
                });
      }
      Result tags;
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT r.doc FROM raw r JOIN raw_tags t ON t.pk = r.pk WHERE t.scope_key = ? AND t.tag = ?"
                  + " ORDER BY r.updated_us DESC LIMIT 50")) {
        tags =
            measure(
                "retrieve by tag, limit 50",
                operations,
                i -> {
                  ps.setString(1, "project=p" + random.nextInt(projects));
                  ps.setString(2, "t" + random.nextInt(TAGS));
                  drain(ps);
                });
      }
      Result text;
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT r.doc FROM raw r JOIN raw_terms t ON t.pk = r.pk WHERE t.scope_key = ? AND t.term = ?"
                  + " ORDER BY r.updated_us DESC LIMIT 50")) {
        text =
            measure(
                "retrieve full-text, limit 50",
                operations,
                i -> {
                  ps.setString(1, "project=p" + random.nextInt(projects));
                  ps.setString(2, "w" + random.nextInt(200));
                  drain(ps);
                });
      }
      return new Result[] {store, read, tags, text};
    }
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
      for (var tag : record.path("tags")) {
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

  private static void drain(PreparedStatement ps) throws SQLException {
    try (ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        rs.getString(1);
      }
    }
  }

  private static void deleteTree(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
