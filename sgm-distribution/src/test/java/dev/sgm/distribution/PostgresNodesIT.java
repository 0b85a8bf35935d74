package dev.sgm.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Server nodes on PostgreSQL as operators run them ({@code bin/sgm serve} and {@code bin/sgm
 * migrate} processes on one throw-away cluster from {@code scripts/postgres.sh}): a node killed
 * with SIGKILL under write load loses no acknowledged write, a database restarted under load makes
 * the node answer {@code unavailable} (503) and then recover by itself, and migrate applies the
 * schema and names what is wrong with its settings. Skipped when no PostgreSQL can be started,
 * unless {@code SGM_REQUIRE_POSTGRES} is set.
 */
class PostgresNodesIT {
  private static final Path DIST = Path.of(System.getProperty("sgm.dist", "target/sgm"));
  private static final Path SCRIPT = Path.of("..", "scripts", "postgres.sh").toAbsolutePath();
  private static final int KILL_CYCLES = 20;
  private static final int WRITERS_PER_NODE = 4;
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private static Path cluster;
  private static String serverUrl;
  private static Path bin;
  private static String failure;

  @TempDir Path temp;

  @BeforeAll
  static void startCluster() throws Exception {
    Path dir = Path.of("/tmp", "sgm-pg-dist-" + ProcessHandle.current().pid());
    Process process =
        new ProcessBuilder(SCRIPT.toString(), "start", dir.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(300, TimeUnit.SECONDS) || process.exitValue() != 0) {
      failure = SCRIPT + " start failed";
    } else {
      Map<String, String> values = new HashMap<>();
      out.lines()
          .filter(l -> l.contains("="))
          .forEach(
              l -> values.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
      cluster = dir;
      serverUrl = values.get("url");
      bin = Path.of(values.get("bin"));
    }
    if (failure != null && System.getenv("SGM_REQUIRE_POSTGRES") != null) {
      throw new IllegalStateException("no PostgreSQL server could be started: " + failure);
    }
  }

  @AfterAll
  static void stopCluster() throws Exception {
    if (cluster != null) {
      script("stop");
    }
  }

  @BeforeEach
  void needCluster() {
    assumeTrue(cluster != null, () -> "no PostgreSQL server could be started: " + failure);
  }

  private static void script(String command) throws Exception {
    Process process =
        new ProcessBuilder(SCRIPT.toString(), command, cluster.toString())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .start();
    assertTrue(process.waitFor(120, TimeUnit.SECONDS), command);
    assertEquals(0, process.exitValue(), SCRIPT + " " + command);
  }

  private static int port() {
    return Integer.parseInt(serverUrl.replaceAll(".*:(\\d+)/.*", "$1"));
  }

  /** Runs a PostgreSQL client tool as role sgm; its output. */
  private static String client(String tool, String... args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                bin.resolve(tool).toString(), "-h", "127.0.0.1", "-p", "" + port(), "-U", "sgm"));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("PGPASSWORD", "sgm");
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(60, TimeUnit.SECONDS));
    assertEquals(0, process.exitValue(), out);
    return out.strip();
  }

  /** A new, empty database on the cluster; its JDBC URL. */
  private static String newDatabase() throws Exception {
    String name = "d" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
    client("createdb", name);
    return serverUrl.substring(0, serverUrl.lastIndexOf('/') + 1) + name;
  }

  private static String databaseName(String url) {
    return url.substring(url.lastIndexOf('/') + 1);
  }

  private record Result(int code, String out, String err) {}

  private Result sgm(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(DIST.resolve("bin/sgm").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    builder.environment().putAll(env);
    Path out = Files.createTempFile(temp, "out", ".txt");
    Path err = Files.createTempFile(temp, "err", ".txt");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertTrue(process.waitFor(120, TimeUnit.SECONDS));
    return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /**
   * One {@code bin/sgm serve --storage postgres} node on a fixed HTTP port and data directory, so
   * that it comes back where it was after a kill.
   */
  private final class Node implements AutoCloseable {
    final String databaseUrl;
    final int port;
    final Path data;
    final List<String> extra;
    Process process;
    int starts;

    /** {@code host:port} of its gRPC transport, as its last start printed it. */
    String grpc;

    /** The URL of its MCP endpoint, as its last start printed it. */
    String mcp;

    Node(String databaseUrl, String... extra) throws IOException {
      this.databaseUrl = databaseUrl;
      this.port = freePort();
      this.data = Files.createTempDirectory(temp, "node");
      this.extra = List.of(extra);
    }

    String url() {
      return "http://127.0.0.1:" + port;
    }

    void start() throws Exception {
      List<String> command =
          new ArrayList<>(
              List.of(
                  DIST.resolve("bin/sgm").toString(),
                  "serve",
                  "--data",
                  data.toString(),
                  "-D",
                  "storage=postgres",
                  "-D",
                  "storage.postgres.url=" + databaseUrl,
                  "-D",
                  "http.port=" + port,
                  "-D",
                  "http.log-requests=false",
                  "-D",
                  "grpc.port=0",
                  "-D",
                  "mcp.port=0"));
      for (String option : extra) {
        command.add("-D");
        command.add(option);
      }
      ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
      builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
      builder.environment().put("SGM_STORAGE_POSTGRES_PASSWORD", "sgm");
      Path log = data.resolve("serve-" + ++starts + ".log");
      process = builder.redirectOutput(log.toFile()).start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline
          && process.isAlive()
          && !Files.readString(log).contains("ready in")) {
        Thread.sleep(20);
      }
      String text = Files.readString(log);
      if (!text.contains("ready in")) {
        process.destroyForcibly();
      }
      assertTrue(text.contains("ready in"), text);
      java.util.regex.Matcher served =
          java.util.regex.Pattern.compile("serving grpc://(\\S+)").matcher(text);
      assertTrue(served.find(), text);
      grpc = served.group(1);
      java.util.regex.Matcher mcpServed =
          java.util.regex.Pattern.compile("serving (http://\\S+/mcp)").matcher(text);
      assertTrue(mcpServed.find(), text);
      mcp = mcpServed.group(1);
    }

    /** SIGKILL: no shutdown hook, nothing flushed or closed. */
    void kill() throws InterruptedException {
      process.destroyForcibly();
      assertTrue(process.waitFor(30, TimeUnit.SECONDS));
    }

    @Override
    public void close() {
      if (process != null) {
        process.destroy();
        try {
          process.waitFor(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        } finally {
          process.destroyForcibly(); // not left running, holding its port
        }
      }
    }
  }

  private static HttpResponse<String> post(String node, String operation, String body)
      throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(node + "/v1/" + operation))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The standard gRPC health service of a node. */
  private static final class GrpcHealth implements AutoCloseable {
    private final ManagedChannel channel;
    private final HealthGrpc.HealthBlockingStub stub;

    GrpcHealth(String target) {
      channel = Grpc.newChannelBuilder(target, InsecureChannelCredentials.create()).build();
      stub = HealthGrpc.newBlockingStub(channel);
    }

    /** The status once it is {@code wanted}, or the last one seen after 10 s. */
    ServingStatus await(ServingStatus wanted) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      ServingStatus seen;
      do {
        seen =
            stub.withDeadlineAfter(2, TimeUnit.SECONDS)
                .check(HealthCheckRequest.newBuilder().setService("sgm.v1.Memory").build())
                .getStatus();
        if (seen != wanted) {
          Thread.sleep(100);
        }
      } while (seen != wanted && System.nanoTime() < deadline);
      return seen;
    }

    @Override
    public void close() {
      channel.shutdownNow();
    }
  }

  private static HttpResponse<String> health(String node) throws IOException, InterruptedException {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(node + "/healthz"))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String storeBody(String scope, String id) {
    return "{\"record\":{\"id\":\""
        + id
        + "\",\"type\":\"note\",\"scope\":{\"project\":\""
        + scope
        + "\"},\"content\":\"content of "
        + id
        + "\",\"provenance\":{\"agent\":\"writer\"}}}";
  }

  /**
   * Writers storing new records through the given nodes until stopped, each acknowledged id kept;
   * every answer that is not 200 is counted by status and error code.
   */
  private static final class Writers {
    final Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    final Map<String, AtomicLong> refusals = new ConcurrentHashMap<>();
    final AtomicLong unreachable = new AtomicLong();
    final AtomicBoolean stop = new AtomicBoolean();
    final ExecutorService pool;
    final List<Future<?>> running = new ArrayList<>();

    Writers(String scope, List<String> nodes, int perNode) {
      pool = Executors.newFixedThreadPool(nodes.size() * perNode);
      for (int w = 0; w < nodes.size() * perNode; w++) {
        String node = nodes.get(w % nodes.size());
        String prefix = "w" + w + "-";
        running.add(
            pool.submit(
                () -> {
                  for (long n = 0; !stop.get(); n++) {
                    String id = prefix + n;
                    try {
                      HttpResponse<String> answer = post(node, "store", storeBody(scope, id));
                      if (answer.statusCode() == 200) {
                        acknowledged.add(id);
                        continue;
                      }
                      String code = Json.parse(answer.body()).path("error").path("code").asText();
                      refusals
                          .computeIfAbsent(answer.statusCode() + " " + code, k -> new AtomicLong())
                          .incrementAndGet();
                    } catch (IOException e) {
                      // The node is down (killed, restarting): not acknowledged, try again.
                      unreachable.incrementAndGet();
                    }
                    Thread.sleep(20);
                  }
                  return null;
                }));
      }
    }

    long refused(String statusAndCode) {
      AtomicLong count = refusals.get(statusAndCode);
      return count == null ? 0 : count.get();
    }

    /** Stops every writer and waits for its last call to end. */
    void stop() throws Exception {
      stop.set(true);
      for (Future<?> writer : running) {
        writer.get(60, TimeUnit.SECONDS);
      }
      pool.shutdownNow();
    }
  }

  /** Reads every id back through {@code node}; the ids not found with their content. */
  private static List<String> missing(String node, String scope, Set<String> ids) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<String>> reads = new ArrayList<>();
      for (String id : ids) {
        reads.add(
            pool.submit(
                () -> {
                  HttpResponse<String> read =
                      post(
                          node,
                          "read",
                          "{\"scope\":{\"project\":\"" + scope + "\"},\"id\":\"" + id + "\"}");
                  boolean found =
                      read.statusCode() == 200
                          && Json.parse(read.body())
                              .path("record")
                              .path("content")
                              .asText()
                              .equals("content of " + id);
                  return found ? null : id + " (" + read.statusCode() + ")";
                }));
      }
      List<String> missing = new ArrayList<>();
      for (Future<String> read : reads) {
        String result = read.get(120, TimeUnit.SECONDS);
        if (result != null) {
          missing.add(result);
        }
      }
      return missing;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * MCP 2026-07-28 is stateless: one client whose requests a proxy sends to either of two nodes in
   * turn (no session affinity) gets every request answered, reads through one node what it stored
   * through the other, and a listen held on one node sees stores made through the other.
   */
  @Test
  void aModernMcpClientsRequestsMayGoToEitherNode() throws Exception {
    Path node = Path.of("src", "test", "node");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isDirectory(node.resolve("node_modules/@modelcontextprotocol/client")),
        "the MCP client v2 is not installed: npm ci --prefix sgm-distribution/src/test/node (.ci/run does)");
    String database = newDatabase();
    try (Node a = new Node(database);
        Node b = new Node(database)) {
      a.start();
      b.start();
      Path output = temp.resolve("two-nodes.log");
      Process client =
          new ProcessBuilder("node", node.resolve("mcp-two-nodes.mjs").toString(), a.mcp, b.mcp)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      assertTrue(client.waitFor(180, TimeUnit.SECONDS));
      String log = Files.readString(output);
      System.out.println(log);
      assertEquals(0, client.exitValue(), log);
      assertTrue(log.contains(" 0 failed"), log);
    }
  }

  @Test
  void killingANodeUnderWriteLoadLosesNoAcknowledgedWrite() throws Exception {
    String database = newDatabase();
    try (Node a = new Node(database);
        Node b = new Node(database)) {
      a.start();
      b.start();
      List<Node> nodes = List.of(a, b);
      long restartNanos = 0;
      Writers writers = new Writers("kill", List.of(a.url(), b.url()), WRITERS_PER_NODE);
      try {
        for (int cycle = 0; cycle < KILL_CYCLES; cycle++) {
          int before = writers.acknowledged.size();
          Thread.sleep(500);
          assertTrue(
              writers.acknowledged.size() > before, "no write was acknowledged in cycle " + cycle);
          Node victim = nodes.get(cycle % 2);
          victim.kill();
          long started = System.nanoTime();
          victim.start();
          restartNanos += System.nanoTime() - started;
        }
        Thread.sleep(500);
      } finally {
        writers.stop();
      }
      Set<String> acknowledged = Set.copyOf(writers.acknowledged);
      assertTrue(acknowledged.size() >= KILL_CYCLES * 10, acknowledged.size() + " acknowledged");
      for (Node node : nodes) {
        List<String> missing = missing(node.url(), "kill", acknowledged);
        assertEquals(List.of(), missing, "acknowledged but not readable through " + node.url());
      }
      // A node refuses nothing for its own reasons while its peer dies: every refusal is a call
      // caught in flight by the kill, or none.
      assertEquals(Map.of(), Map.copyOf(writers.refusals), "refused stores");
      System.out.printf(
          "kill -9 under load: %d cycles, %d acknowledged stores, all readable through both nodes;"
              + " %d calls found a node down; restart %d ms on average%n",
          KILL_CYCLES,
          acknowledged.size(),
          writers.unreachable.get(),
          restartNanos / KILL_CYCLES / 1_000_000);
    }
  }

  @Test
  void aDatabaseRestartedUnderLoadAnswersUnavailableThenRecoversWithoutANodeRestart()
      throws Exception {
    String database = newDatabase();
    try (Node node = new Node(database, "storage.postgres.connect-timeout-seconds=2")) {
      node.start();
      long pid = node.process.pid();
      JsonNode healthy = Json.parse(health(node.url()).body());
      assertEquals("ok", healthy.path("status").asText(), healthy.toString());
      assertEquals("postgres", healthy.path("storage").path("name").asText(), healthy.toString());
      assertEquals("ok", healthy.path("storage").path("status").asText(), healthy.toString());
      GrpcHealth grpcHealth = new GrpcHealth(node.grpc);
      assertEquals(ServingStatus.SERVING, grpcHealth.await(ServingStatus.SERVING));
      Writers writers = new Writers("restart", List.of(node.url()), 4);
      long recoveredMs;
      try {
        Thread.sleep(1000);
        assertFalse(writers.acknowledged.isEmpty(), "stores are acknowledged before the stop");
        script("down");
        try {
          HttpResponse<String> down = health(node.url());
          assertEquals(503, down.statusCode(), down.body());
          JsonNode report = Json.parse(down.body());
          assertEquals("unavailable", report.path("status").asText(), down.body());
          assertEquals("unavailable", report.path("storage").path("status").asText());
          assertEquals(
              ServingStatus.NOT_SERVING,
              grpcHealth.await(ServingStatus.NOT_SERVING),
              "gRPC health while the database is down");
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
          while (writers.refused("503 unavailable") < 8 && System.nanoTime() < deadline) {
            Thread.sleep(100);
          }
          assertTrue(
              writers.refused("503 unavailable") >= 8,
              "stores while the database is down: " + writers.refusals);
        } finally {
          script("up");
        }
        long back = System.nanoTime();
        int acknowledgedWhenBack = writers.acknowledged.size();
        long deadline = back + TimeUnit.SECONDS.toNanos(30);
        while ((health(node.url()).statusCode() != 200
                || writers.acknowledged.size() <= acknowledgedWhenBack)
            && System.nanoTime() < deadline) {
          Thread.sleep(50);
        }
        recoveredMs = (System.nanoTime() - back) / 1_000_000;
        assertEquals(200, health(node.url()).statusCode(), "healthy again within 30 s");
        assertEquals(
            ServingStatus.SERVING,
            grpcHealth.await(ServingStatus.SERVING),
            "gRPC health once the database is back");
        assertTrue(
            writers.acknowledged.size() > acknowledgedWhenBack, "stores succeed again within 30 s");
        Thread.sleep(500);
      } finally {
        writers.stop();
        grpcHealth.close();
      }
      assertTrue(node.process.isAlive(), "the node kept running");
      assertEquals(pid, node.process.pid(), "the same node process recovered");
      assertEquals(
          Set.of("503 unavailable"),
          writers.refusals.keySet(),
          "a database that is gone is unavailable, never internal: " + writers.refusals);
      assertEquals(List.of(), missing(node.url(), "restart", Set.copyOf(writers.acknowledged)));
      System.out.printf(
          "database restart under load: %d stores answered 503 unavailable while it was down;"
              + " stores acknowledged again %d ms after it was back; %d acknowledged in all%n",
          writers.refused("503 unavailable"), recoveredMs, writers.acknowledged.size());
    }
  }

  /** The newest schema version the PostgreSQL plugin ships (its V<n>__*.sql scripts). */
  private static final int LATEST_MIGRATION = latestMigration();

  private static int latestMigration() {
    Path scripts =
        Path.of(
            "..",
            "sgm-storage-postgres",
            "src",
            "main",
            "resources",
            "dev",
            "sgm",
            "storage",
            "postgres");
    try (Stream<Path> files = Files.list(scripts)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(f -> f.matches("V\\d+__.*\\.sql"))
          .mapToInt(f -> Integer.parseInt(f.substring(1, f.indexOf("__"))))
          .max()
          .orElseThrow();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void migrateAppliesTheSchemaAndExitsAndNamesWhatIsWrong() throws Exception {
    String database = newDatabase();
    Map<String, String> password = Map.of("SGM_STORAGE_POSTGRES_PASSWORD", "sgm");
    String[] settings = {"-D", "storage=postgres", "-D", "storage.postgres.url=" + database};
    Result migrated = sgm(password, concat("migrate", settings));
    assertEquals(0, migrated.code(), migrated.err());
    assertTrue(migrated.out().contains("is up to date"), migrated.out());
    String name = databaseName(database);
    assertEquals(
        Integer.toString(LATEST_MIGRATION),
        client("psql", "-d", name, "-tAc", "SELECT MAX(version) FROM flyway_schema_history"));
    assertEquals("0", client("psql", "-d", name, "-tAc", "SELECT COUNT(*) FROM access_tokens"));
    Result again = sgm(password, concat("migrate", settings));
    assertEquals(0, again.code(), again.err());

    Result wrongPassword =
        sgm(Map.of("SGM_STORAGE_POSTGRES_PASSWORD", "wrong"), concat("migrate", settings));
    assertEquals(5, wrongPassword.code(), wrongPassword.err());
    assertTrue(wrongPassword.err().contains("wrong password"), wrongPassword.err());
    Result missingDatabase =
        sgm(
            password,
            "migrate",
            "-D",
            "storage=postgres",
            "-D",
            "storage.postgres.url=" + database + "_absent");
    assertEquals(5, missingDatabase.code(), missingDatabase.err());
    assertTrue(missingDatabase.err().contains("has no database"), missingDatabase.err());
    Result unreachable =
        sgm(
            password,
            "migrate",
            "-D",
            "storage=postgres",
            "-D",
            "storage.postgres.url=jdbc:postgresql://127.0.0.1:" + freePort() + "/sgm");
    assertEquals(5, unreachable.code(), unreachable.err());
    assertTrue(unreachable.err().contains("cannot be reached"), unreachable.err());
  }

  private static String[] concat(String first, String... rest) {
    List<String> all = new ArrayList<>(List.of(first));
    all.addAll(List.of(rest));
    return all.toArray(String[]::new);
  }
}
