package dev.sgm.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import dev.sgm.transport.mcp.McpStdioClient;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The assembled distribution, launched as users launch it ({@code bin/sgm}, everything on the
 * module path): discovery lists exactly the plugins present, removing or disabling a plugin removes
 * its capability, and two plugins of one name stop start-up.
 */
class DistributionIT {
  private static final Path DIST = Path.of(System.getProperty("sgm.dist", "target/sgm"));

  @TempDir Path temp;

  private record Result(int code, String out, String err) {}

  private Result sgm(Path dist, Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(dist.resolve("bin/sgm").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    builder.environment().putAll(env);
    Path out = Files.createTempFile(temp, "out", ".txt");
    Path err = Files.createTempFile(temp, "err", ".txt");
    Process process = builder.redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    // A ceiling for a hung command, not a target: a whole kit run takes about 40 s on 2 cores.
    assertTrue(process.waitFor(5, TimeUnit.MINUTES));
    return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  private List<String> capabilities(Path dist, Map<String, String> env) throws Exception {
    Result result = sgm(dist, env, "--memory", "discover");
    assertEquals(0, result.code(), result.err());
    List<String> names = new ArrayList<>();
    Json.parse(result.out()).path("capabilities").forEach(c -> names.add(c.asText()));
    return names;
  }

  private Path copy() throws IOException {
    Path copy = temp.resolve("dist");
    try (Stream<Path> files = Files.walk(DIST)) {
      for (Path source : files.toList()) {
        Path target = copy.resolve(DIST.relativize(source).toString());
        if (Files.isDirectory(source)) {
          Files.createDirectories(target);
        } else {
          Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    return copy;
  }

  @Test
  void discoveryListsExactlyThePluginsPresent() throws Exception {
    assertEquals(
        List.of("core", "collaboration", "code", "history", "grpc", "http", "mcp", "cli"),
        capabilities(DIST, Map.of()));
  }

  @Test
  void theStartUpCacheIsRecordedWrittenAndUsedWithoutAWordOnTheOutput() throws Exception {
    Path caches = temp.resolve("cache").resolve("sgm");
    // The first run records, the second writes the cache in the background, later runs map it;
    // every one answers alike, with nothing of the JVM's on either stream.
    String first = null;
    for (int run = 0; run < 4; run++) {
      Result result = sgm(DIST, Map.of(), "--memory", "discover");
      assertEquals(0, result.code(), result.err());
      assertEquals("", result.err());
      String capabilities = Json.parse(result.out()).path("capabilities").toString();
      if (first == null) {
        first = capabilities;
      }
      assertEquals(first, capabilities);
      if (run == 1) {
        awaitNoCacheBeingWritten(caches);
      }
    }
    try (Stream<Path> files = Files.list(caches)) {
      List<String> names = files.map(f -> f.getFileName().toString()).toList();
      // Ahead-of-time on a JDK 25 or later, class-data sharing before.
      assertTrue(
          names.stream().anyMatch(n -> n.endsWith("-command.aot") || n.endsWith("-command.jsa")),
          names.toString());
      assertTrue(names.stream().noneMatch(n -> n.endsWith(".record")), names.toString());
    }
  }

  private static void awaitNoCacheBeingWritten(Path caches) throws Exception {
    // A ceiling for a hung writer, not a target: writing takes about a second.
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (true) {
      try (Stream<Path> files = Files.list(caches)) {
        if (files.noneMatch(f -> Files.exists(f.resolve("writing")))) {
          return;
        }
      }
      assertTrue(System.nanoTime() < deadline, "the start-up cache was not written");
      Thread.sleep(50);
    }
  }

  @Test
  void commandsWithNoServerBesideThemFindByMeaningWhatOtherCommandsStored() throws Exception {
    String data = temp.resolve("data").toString();
    for (String[] note :
        List.of(
            new String[] {"db", "Persistence is handled by PostgreSQL 15"},
            new String[] {"lunch", "Lunch is served at noon in the canteen"})) {
      Result stored =
          sgm(
              DIST,
              Map.of(),
              "remember",
              "--data",
              data,
              "--project",
              "demo",
              "--id",
              note[0],
              note[1]);
      assertEquals(0, stored.code(), stored.err());
    }
    // Each command exits after storing: what it stored is embedded before it does. A search by
    // words brings the index up to every write (and keeps it so); discovery then reads it.
    Result byWords =
        sgm(
            DIST,
            Map.of(),
            "recall",
            "--data",
            data,
            "--project",
            "demo",
            "--mode",
            "text",
            "lunch");
    assertEquals(0, byWords.code(), byWords.err());
    Result discovered = sgm(DIST, Map.of(), "discover", "--data", data);
    assertEquals(
        0,
        Json.parse(discovered.out())
            .path("retrieval")
            .path("index")
            .path("pending_embeddings")
            .asLong(-1),
        discovered.out());
    for (String mode : List.of("semantic", "hybrid")) {
      Result recalled =
          sgm(
              DIST,
              Map.of(),
              "recall",
              "--data",
              data,
              "--project",
              "demo",
              "--mode",
              mode,
              "which database do we use");
      assertEquals(0, recalled.code(), recalled.err());
      JsonNode answer = Json.parse(recalled.out());
      assertEquals("db", answer.path("records").path(0).path("id").asText(), recalled.out());
      assertEquals(mode, answer.path("retrieval").path("mode").asText());
      assertFalse(answer.path("retrieval").has("pending_embeddings"), recalled.out());
    }
  }

  @Test
  void storageIsAPluginChosenByName() throws Exception {
    Path dist = copy();
    try (Stream<Path> plugins = Files.list(dist.resolve("plugins"))) {
      for (Path jar :
          plugins.filter(p -> p.getFileName().toString().startsWith("sgm-storage-h2")).toList()) {
        Files.delete(jar);
      }
    }
    // Without the embedded store the default names a storage that is not there.
    Result without = sgm(dist, Map.of(), "discover", "--data", temp.resolve("no-h2").toString());
    assertEquals(2, without.code(), without.err());
    assertTrue(
        without.err().contains("unknown storage 'h2' in storage; available: [postgres]"),
        without.err());
    Result memory = sgm(DIST, Map.of(), "discover", "--memory", "-D", "storage=postgres");
    assertEquals(2, memory.code(), memory.err());
    assertTrue(memory.err().contains("cannot run with storage.memory"), memory.err());
  }

  @Test
  void removingAPluginJarRemovesItsCapability() throws Exception {
    Path dist = copy();
    try (Stream<Path> plugins = Files.list(dist.resolve("plugins"))) {
      for (Path jar :
          plugins
              .filter(p -> p.getFileName().toString().startsWith("sgm-profile-history"))
              .toList()) {
        Files.delete(jar);
      }
    }
    assertEquals(
        List.of("core", "collaboration", "code", "grpc", "http", "mcp", "cli"),
        capabilities(dist, Map.of()));
    Result call =
        sgm(
            dist,
            Map.of(),
            "--memory",
            "history.versions",
            "{\"scope\":{\"project\":\"p\"},\"id\":\"x\"}");
    assertEquals(6, call.code(), call.err());
    assertTrue(call.err().startsWith("sgm: unsupported_capability: "), call.err());
  }

  @Test
  void disablingAPluginByConfigurationRemovesItsCapability() throws Exception {
    Map<String, String> env = Map.of("SGM_PROFILES_DISABLED", "history");
    assertEquals(
        List.of("core", "collaboration", "code", "grpc", "http", "mcp", "cli"),
        capabilities(DIST, env));
    Result call =
        sgm(
            DIST,
            env,
            "--memory",
            "history.versions",
            "{\"scope\":{\"project\":\"p\"},\"id\":\"x\"}");
    assertEquals(6, call.code(), call.err());
    assertEquals(
        List.of("core", "collaboration", "code", "history", "cli"),
        capabilities(DIST, Map.of("SGM_TRANSPORTS_DISABLED", "http,grpc,mcp")));
  }

  @Test
  void theEmbedderShipsInPluginsAndStartsQuietlyWithOrWithoutIt() throws Exception {
    List<String> embedderJars =
        List.of("sgm-embedding-bge-", "langchain4j-", "onnxruntime-", "tokenizers-", "api-");
    Path dist = copy();
    List<Path> present;
    try (Stream<Path> plugins = Files.list(dist.resolve("plugins"))) {
      present =
          plugins
              .filter(p -> embedderJars.stream().anyMatch(p.getFileName().toString()::startsWith))
              .toList();
    }
    assertEquals(
        9,
        present.size(),
        "the plugins (bge, bge with e5), langchain4j (4), ONNX Runtime, DJL (2): " + present);
    // Natives granted by the launcher only for modules that are there: nothing on standard error.
    Result with = sgm(dist, Map.of(), "--memory", "discover");
    assertEquals(0, with.code(), with.err());
    assertEquals("", with.err());
    assertEquals(
        "bge-small-en-v1.5-q+e5-small-v2-q",
        Json.parse(with.out()).path("retrieval").path("embedding").path("model").asText(),
        "the two models together come first");
    Result bgeAlone =
        sgm(dist, Map.of("SGM_EMBEDDERS_DISABLED", "bge-e5-small"), "--memory", "discover");
    assertEquals(0, bgeAlone.code(), bgeAlone.err());
    assertEquals(
        "bge-small-en-v1.5-q",
        Json.parse(bgeAlone.out()).path("retrieval").path("embedding").path("model").asText());
    // Without the second model's jars, bge alone, quietly.
    for (Path jar : present) {
      String name = jar.getFileName().toString();
      if (name.startsWith("sgm-embedding-bge-e5-")
          || name.startsWith("langchain4j-embeddings-e5")) {
        Files.delete(jar);
      }
    }
    Result withoutE5 = sgm(dist, Map.of(), "--memory", "discover");
    assertEquals(0, withoutE5.code(), withoutE5.err());
    assertEquals("", withoutE5.err());
    assertEquals(
        "bge-small-en-v1.5-q",
        Json.parse(withoutE5.out()).path("retrieval").path("embedding").path("model").asText());
    for (Path jar : present) {
      Files.deleteIfExists(jar);
    }
    Result without = sgm(dist, Map.of(), "--memory", "discover");
    assertEquals(0, without.code(), without.err());
    assertEquals("", without.err());
  }

  @Test
  void twoPluginsOfOneNameStopStartUp() throws Exception {
    Path dist = copy();
    Files.copy(duplicateHistoryPlugin(dist), dist.resolve("plugins/duplicate-history.jar"));
    Result result = sgm(dist, Map.of(), "--memory", "discover");
    assertEquals(2, result.code(), result.err());
    assertTrue(result.err().contains("two profile plugins are named 'history'"), result.err());
  }

  /** A running {@code bin/sgm serve} on free ports, with the endpoints it printed. */
  private record Served(Process process, String http, String grpc, String mcp)
      implements AutoCloseable {
    @Override
    public void close() {
      process.destroy(); // SIGTERM
      try {
        process.waitFor(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        process.destroyForcibly(); // not left running, holding its ports
      }
    }
  }

  private Served serve() throws Exception {
    return serve(DIST);
  }

  private Served serve(Path dist, String... options) throws Exception {
    List<String> command =
        new java.util.ArrayList<>(
            List.of(
                dist.resolve("bin/sgm").toString(),
                "serve",
                "--memory",
                "-D",
                "http.port=0",
                "-D",
                "grpc.port=0",
                "-D",
                "mcp.port=0"));
    for (String option : options) {
      command.add("-D");
      command.add(option);
    }
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    Path log = Files.createTempFile(temp, "serve", ".log");
    Process process = builder.redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline && !Files.readString(log).contains("ready in")) {
      Thread.sleep(20);
    }
    String text = Files.readString(log);
    if (!text.contains("ready in")) {
      process.destroyForcibly(); // not left running, holding its ports
    }
    assertTrue(text.contains("ready in"), text);
    // A quiet start: neither the JVM's notice of an incubator module nor a server's banner.
    assertFalse(text.contains("incubator") || text.toLowerCase().contains("jetty"), text);
    String http = null;
    String grpc = null;
    String mcp = null;
    for (String line : text.lines().toList()) {
      if (line.startsWith("serving ")) {
        String url = line.substring("serving ".length()).trim();
        if (url.startsWith("grpc://")) {
          grpc = url;
        } else if (url.endsWith("/mcp")) {
          mcp = url;
        } else {
          http = url;
        }
      }
    }
    return new Served(process, http, grpc, mcp);
  }

  @Test
  void anMcpClientWrittenByOthersDrivesItOverStdioAndHttp() throws Exception {
    Path node = Path.of("src", "test", "node");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isDirectory(node.resolve("node_modules/@modelcontextprotocol/sdk")),
        "the MCP SDK is not installed: npm ci --prefix sgm-distribution/src/test/node (.ci/run does)");
    try (Served served = serve()) {
      Path output = temp.resolve("node.log");
      ProcessBuilder builder =
          new ProcessBuilder(
                  "node",
                  node.resolve("mcp-client.mjs").toString(),
                  DIST.resolve("bin/sgm").toString(),
                  served.mcp())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile());
      builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
      Process client = builder.start();
      assertTrue(client.waitFor(120, TimeUnit.SECONDS));
      String log = Files.readString(output);
      System.out.println(log);
      assertEquals(0, client.exitValue(), log);
      assertTrue(log.contains("0 failed"), log);
    }
  }

  @Test
  void theMcpSdkPresentsABearerTokenToAServerWithAuthenticationOn() throws Exception {
    Path node = Path.of("src", "test", "node").toAbsolutePath();
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isDirectory(node.resolve("node_modules/@modelcontextprotocol/sdk")),
        "the MCP SDK is not installed (npm ci in src/test/node; .ci/run does)");
    String token = "distribution-bootstrap-token-0123456789abcdef";
    try (Served served = serve(DIST, "auth.token=" + token)) {
      Path output = temp.resolve("node-auth.log");
      Process client =
          new ProcessBuilder(
                  "node", node.resolve("mcp-auth-client.mjs").toString(), served.mcp(), token)
              .redirectErrorStream(true)
              .redirectOutput(output.toFile())
              .start();
      assertTrue(client.waitFor(120, TimeUnit.SECONDS));
      String log = Files.readString(output);
      System.out.println(log);
      assertEquals(0, client.exitValue(), log);
      assertTrue(log.contains("0 failed"), log);
    }
  }

  @Test
  void serveAnswersAndStopsOnSigterm() throws Exception {
    try (Served served = serve()) {
      Process server = served.process();
      HttpResponse<String> health =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(served.http() + "/healthz")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertEquals(200, health.statusCode());
      // A long-running server gets the optimising JIT compiler; only short commands go without it.
      // Read from /proc: ProcessHandle.Info leaves out a command line as long as this module path.
      List<String> jvmArguments =
          List.of(
              Files.readString(Path.of("/proc", Long.toString(server.pid()), "cmdline"))
                  .split("\0"));
      assertTrue(
          jvmArguments.stream().noneMatch(a -> a.startsWith("-XX:TieredStopAtLevel")),
          jvmArguments.toString());
      assertTrue(jvmArguments.contains("serve"), jvmArguments.toString());
      server.destroy(); // SIGTERM
      assertTrue(server.waitFor(30, TimeUnit.SECONDS));
    }
  }

  /**
   * Every explicit module shipped (and the test plugin) provides through its module-info exactly
   * what its META-INF/services files list, so it loads the same on the module path and the class
   * path.
   */
  @Test
  void everyModuleProvidesWhatItsServiceFilesList() throws Exception {
    List<Path> jars = new ArrayList<>();
    for (Path dir :
        List.of(
            DIST.resolve("lib"),
            DIST.resolve("plugins"),
            Path.of(System.getProperty("sgm.test-plugin", "target/test-plugin")))) {
      try (Stream<Path> files = Files.list(dir)) {
        files.filter(f -> f.toString().endsWith(".jar")).forEach(jars::add);
      }
    }
    int checked = 0;
    for (Path jar : jars) {
      var module = java.lang.module.ModuleFinder.of(jar).findAll().iterator().next().descriptor();
      if (module.isAutomatic() || !module.name().startsWith("dev.sgm")) {
        continue;
      }
      Map<String, List<String>> declared = new java.util.TreeMap<>();
      module.provides().forEach(p -> declared.put(p.service(), List.copyOf(p.providers())));
      Map<String, List<String>> listed = new java.util.TreeMap<>();
      try (var file = new java.util.jar.JarFile(jar.toFile())) {
        for (JarEntry entry : java.util.Collections.list(file.entries())) {
          String name = entry.getName();
          if (name.startsWith("META-INF/services/") && !entry.isDirectory()) {
            String text = new String(file.getInputStream(entry).readAllBytes());
            listed.put(
                name.substring("META-INF/services/".length()),
                text.lines()
                    .map(String::trim)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#"))
                    .toList());
          }
        }
      }
      assertEquals(declared, listed, module.name() + " in " + jar.getFileName());
      checked++;
    }
    assertTrue(checked >= 9, "modules checked: " + checked);
  }

  @Test
  void theConformanceKitIsAPluginThatRunsOverEveryTransport() throws Exception {
    try (Stream<Path> lib = Files.list(DIST.resolve("lib"))) {
      List<String> junit =
          lib.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("junit-")).toList();
      assertEquals(List.of(), junit, "JUnit is not in lib/");
    }
    try (Served served = serve()) {
      for (String url :
          List.of(served.http(), served.grpc(), served.mcp().replace("http://", "mcp+http://"))) {
        Result run = sgm(DIST, Map.of(), "tck", url);
        assertEquals(0, run.code(), url + "\n" + run.out() + run.err());
        // Exit code 0 allows failed further rules; this project's server keeps every rule.
        assertTrue(
            run.out().contains("\nverdict: conforming: every rule that ran passed\n"),
            url + "\n" + run.out());
        for (String suite :
            List.of(
                "core",
                "collaboration",
                "code",
                "history",
                "relevance",
                "the record",
                "scope and identity",
                "operations",
                "discovery",
                "errors")) {
          assertTrue(
              run.out().matches("(?s).*suite " + suite + "[^\n]*: conforming \\([1-9].*"),
              url + " " + suite + "\n" + run.out());
        }
      }
      Path dist = copy();
      try (Stream<Path> plugins = Files.list(dist.resolve("plugins"))) {
        for (Path jar :
            plugins.filter(p -> p.getFileName().toString().startsWith("sgm-tck")).toList()) {
          Files.delete(jar);
        }
      }
      Result without = sgm(dist, Map.of(), "tck", served.http());
      assertEquals(6, without.code(), without.err());
      assertTrue(without.err().contains("conformance kit"), without.err());
    }
  }

  /** A copy of the distribution with the test-only third-party profile plugin in plugins/. */
  private Path withTestPlugin() throws IOException {
    Path dist = copy();
    Path built = Path.of(System.getProperty("sgm.test-plugin", "target/test-plugin"));
    try (Stream<Path> jars = Files.list(built)) {
      for (Path jar : jars.toList()) {
        Files.copy(jar, dist.resolve("plugins").resolve(jar.getFileName()));
      }
    }
    return dist;
  }

  private static final String GREET = "{\"scope\":{\"project\":\"plugin\"},\"name\":\"Ada\"}";

  @Test
  void aThirdPartyProfilePluginIsAdvertisedAndWorksOnTheCommandLine() throws Exception {
    Path dist = withTestPlugin();
    Result discovered = sgm(dist, Map.of(), "--memory", "discover");
    assertEquals(0, discovered.code(), discovered.err());
    JsonNode discovery = Json.parse(discovered.out());
    assertTrue(discovery.path("capabilities").toString().contains("\"example\""), discovered.out());
    JsonNode greet = null;
    for (JsonNode operation : discovery.path("operations")) {
      if (operation.path("name").asText().equals("example.greet")) {
        greet = operation;
      }
    }
    assertTrue(greet != null, discovered.out());
    assertEquals("example", greet.path("capability").asText());
    assertEquals(
        "string",
        greet.path("request_schema").path("properties").path("name").path("type").asText());
    assertEquals(
        "example", discovery.path("record_types").path("greeting").path("profile").asText());
    Result call = sgm(dist, Map.of(), "--memory", "example.greet", GREET);
    assertEquals(0, call.code(), call.err());
    assertEquals("Hello, Ada!", Json.parse(call.out()).path("greeting").asText());
    Result invalid =
        sgm(
            dist,
            Map.of(),
            "--memory",
            "store",
            "{\"id\":\"g\",\"type\":\"greeting\",\"scope\":{\"project\":\"plugin\"},"
                + "\"provenance\":{\"agent\":\"a\"},\"data\":{}}");
    assertEquals(2, invalid.code(), invalid.err());
    assertTrue(invalid.err().contains("data.text"), invalid.err());
  }

  /** A plugin's own conformance suite is found and run by sgm tck when its server offers it. */
  @Test
  void theKitRunsAPluginsOwnSuiteAgainstAServerThatOffersItsProfile() throws Exception {
    Path dist = withTestPlugin();
    try (Served served = serve(dist)) {
      Result run = sgm(dist, Map.of(), "tck", served.http());
      assertEquals(0, run.code(), run.out() + run.err());
      assertTrue(
          run.out().contains("\nsuite example profile: conforming (4 passed, 0 failed, 0 skipped)"),
          run.out());
    }
    try (Served served = serve()) {
      Result run = sgm(dist, Map.of(), "tck", served.http());
      assertEquals(0, run.code(), run.out() + run.err());
      assertTrue(
          run.out()
              .contains(
                  "\nsuite example profile: not run: the implementation does not advertise"
                      + " 'example'"),
          run.out());
    }
  }

  /**
   * A third party's read-only operation in flight from a thin client when the holder dies is sent
   * again to the process that takes the directory over, as the operation's declared effects allow:
   * the rule reads declarations, not a list of names, so a plugin's operation is resent too.
   */
  @Test
  void aPluginsReadOnlyCallInFlightWhenTheHolderDiesIsSentAgainAndAnswered() throws Exception {
    Path dist = withTestPlugin();
    Path data = temp.resolve("held");
    Path release = temp.resolve("release");
    Path waiting = temp.resolve("release.waiting");
    ProcessBuilder holding =
        new ProcessBuilder(
                dist.resolve("bin/sgm").toString(),
                "--data",
                data.toString(),
                "mcp",
                "--project",
                "plugin")
            .redirectError(temp.resolve("holder.err").toFile());
    holding.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    try (McpStdioClient holder = new McpStdioClient(holding)) {
      holder.call(
          "store",
          Json.parse(
              "{\"record\":{\"id\":\"g1\",\"type\":\"greeting\",\"scope\":{\"project\":"
                  + "\"plugin\"},\"provenance\":{\"agent\":\"a\"},\"data\":{\"text\":\"hi\"}}}"));
      ProcessBuilder calling =
          new ProcessBuilder(
                  dist.resolve("bin/sgm").toString(),
                  "--data",
                  data.toString(),
                  "example.greet",
                  "{\"scope\":{\"project\":\"plugin\"},\"name\":\"Ada\",\"wait_for\":\""
                      + release
                      + "\"}")
              .redirectOutput(temp.resolve("call.out").toFile())
              .redirectError(temp.resolve("call.err").toFile());
      calling.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
      Process call = calling.start();
      awaitFile(waiting, call, "the holder runs the call");
      Files.delete(waiting);
      holder.process().destroyForcibly();
      holder.process().waitFor();
      awaitFile(waiting, call, "the call is sent again to the process that took over");
      Files.writeString(release, "");
      assertTrue(call.waitFor(2, TimeUnit.MINUTES), "the call ends");
      assertEquals(0, call.exitValue(), Files.readString(temp.resolve("call.err")));
      JsonNode answer = Json.parse(Files.readString(temp.resolve("call.out")));
      assertEquals("Hello, Ada!", answer.path("greeting").asText(), answer.toString());
      assertEquals(1, answer.path("greetings_kept").asInt(), answer.toString());
    }
  }

  /** Waits for {@code file}, failing with {@code what} if {@code process} ends first. */
  private static void awaitFile(Path file, Process process, String what) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (!Files.exists(file)) {
      if (!process.isAlive()) {
        throw new AssertionError(what + ": the caller ended with " + process.exitValue());
      }
      assertTrue(System.nanoTime() < deadline, what + ": no " + file + " within 2 minutes");
      Thread.sleep(20);
    }
  }

  @Test
  void aThirdPartyProfilePluginWorksOverHttpGrpcAndMcp() throws Exception {
    Path dist = withTestPlugin();
    try (Served served = serve(dist)) {
      HttpClient http = HttpClient.newHttpClient();
      HttpResponse<String> stored =
          http.send(
              HttpRequest.newBuilder(URI.create(served.http() + "/v1/store"))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"record\":{\"id\":\"g1\",\"type\":\"greeting\","
                              + "\"scope\":{\"project\":\"plugin\"},"
                              + "\"provenance\":{\"agent\":\"a\"},\"data\":{\"text\":\"hi\"}}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, stored.statusCode(), stored.body());
      HttpResponse<String> greeted =
          http.send(
              HttpRequest.newBuilder(URI.create(served.http() + "/v1/example.greet"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(GREET))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(200, greeted.statusCode(), greeted.body());
      assertEquals(1, Json.parse(greeted.body()).path("greetings_kept").asLong(), greeted.body());
      HttpResponse<String> openApi =
          http.send(
              HttpRequest.newBuilder(URI.create(served.http() + "/openapi.json")).build(),
              HttpResponse.BodyHandlers.ofString());
      assertEquals(
          "Greets a name and counts the greetings kept in a scope.",
          Json.parse(openApi.body())
              .path("paths")
              .path("/v1/example.greet")
              .path("post")
              .path("summary")
              .asText());

      try (dev.sgm.transport.grpc.SgmGrpcClient grpc =
          new dev.sgm.transport.grpc.SgmGrpcClient(served.grpc())) {
        JsonNode answer = grpc.call("example.greet", Json.parse(GREET));
        assertEquals("Hello, Ada!", answer.path("greeting").asText(), answer.toString());
        assertEquals(1, answer.path("greetings_kept").asLong(), answer.toString());
      }
      for (String remote : List.of(served.http(), served.grpc())) {
        Result call = sgm(DIST, Map.of(), "--remote", remote, "example.greet", GREET);
        assertEquals(0, call.code(), remote + ": " + call.err());
        assertEquals(1, Json.parse(call.out()).path("greetings_kept").asLong(), call.out());
      }
      pythonInvokes(served.grpc());
      nodeUsesTheTool(served);
    }
  }

  /** The Python client of sgm-transport-grpc, from the published protos, calls it via Invoke. */
  private void pythonInvokes(String grpc) throws Exception {
    String python = "/usr/bin/python3";
    Path log = temp.resolve("python.log");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        run(List.of(python, "-c", "import grpc, google.protobuf"), log) == 0
            && run(List.of("protoc", "--version"), log) == 0,
        "python3-grpcio and protoc are not installed (.ci/run installs them)");
    Path protos = temp.resolve("protos");
    Files.createDirectories(protos.resolve("sgm/v1"));
    Files.copy(
        Path.of("..", "docs", "proto", "sgm", "v1", "sgm.proto"),
        protos.resolve("sgm/v1/sgm.proto"));
    for (String proto :
        List.of(
            "google/rpc/status.proto",
            "google/rpc/error_details.proto",
            "google/protobuf/any.proto",
            "google/protobuf/duration.proto",
            "google/protobuf/descriptor.proto")) {
      try (var in = getClass().getClassLoader().getResourceAsStream(proto)) {
        assertTrue(in != null, "the runtime jars carry " + proto);
        Files.createDirectories(protos.resolve(proto).getParent());
        Files.write(protos.resolve(proto), in.readAllBytes());
      }
    }
    Path generated = Files.createDirectories(temp.resolve("generated"));
    assertEquals(
        0,
        run(
            List.of(
                "protoc",
                "-I" + protos,
                "--python_out=" + generated,
                "sgm/v1/sgm.proto",
                "google/rpc/status.proto",
                "google/rpc/error_details.proto"),
            log),
        Files.readString(log));
    int status =
        run(
            List.of(
                python,
                Path.of("..", "sgm-transport-grpc", "src", "test", "python", "client_test.py")
                    .toAbsolutePath()
                    .toString(),
                generated.toString(),
                grpc.substring("grpc://".length()),
                "example.greet",
                GREET,
                "Hello, Ada!"),
            log);
    String output = Files.readString(log);
    System.out.println(output);
    assertEquals(0, status, output);
    assertTrue(output.contains("example.greet answers through Invoke"), output);
  }

  /** The MCP SDK for node finds the plugin's tool, over HTTP and through sgm mcp --remote. */
  private void nodeUsesTheTool(Served served) throws Exception {
    Path node = Path.of("src", "test", "node");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isDirectory(node.resolve("node_modules/@modelcontextprotocol/sdk")),
        "the MCP SDK is not installed: npm ci --prefix sgm-distribution/src/test/node (.ci/run does)");
    Path log = temp.resolve("plugin-node.log");
    int status =
        run(
            List.of(
                "node",
                node.resolve("plugin-client.mjs").toString(),
                DIST.resolve("bin/sgm").toString(),
                served.mcp(),
                served.http()),
            log);
    String output = Files.readString(log);
    System.out.println(output);
    assertEquals(0, status, output);
    assertTrue(output.contains(" 0 failed"), output);
  }

  private int run(List<String> command, Path log) throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    Process process = builder.redirectOutput(log.toFile()).start();
    assertTrue(process.waitFor(120, TimeUnit.SECONDS), String.join(" ", command));
    return process.exitValue();
  }

  /**
   * A plugin jar whose profile is also named "history", compiled against the distribution's lib/.
   */
  private Path duplicateHistoryPlugin(Path dist) throws IOException {
    Path src = Files.createDirectories(temp.resolve("dup/src/dev/sgm/fixture"));
    Files.writeString(
        temp.resolve("dup/src/module-info.java"),
        "module dev.sgm.fixture { requires dev.sgm.api; provides dev.sgm.api.spi.ProfileProvider with"
            + " dev.sgm.fixture.Duplicate; }");
    Files.writeString(
        src.resolve("Duplicate.java"),
        "package dev.sgm.fixture; public final class Duplicate implements dev.sgm.api.spi.ProfileProvider {"
            + " public String name() { return \"history\"; }"
            + " public dev.sgm.api.spi.Profile create(dev.sgm.api.spi.Config c, dev.sgm.api.spi.ProfileContext x) {"
            + " return () -> java.util.List.of(); } }");
    Path classes = Files.createDirectories(temp.resolve("dup/classes"));
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    int status =
        javac.run(
            null,
            null,
            null,
            "--module-path",
            dist.resolve("lib").toString(),
            "-d",
            classes.toString(),
            temp.resolve("dup/src/module-info.java").toString(),
            src.resolve("Duplicate.java").toString());
    assertEquals(0, status, "the fixture compiles");
    Path jar = temp.resolve("dup/duplicate-history.jar");
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file);
        Stream<Path> entries = Files.walk(classes)) {
      for (Path path : entries.filter(Files::isRegularFile).toList()) {
        out.putNextEntry(new JarEntry(classes.relativize(path).toString().replace('\\', '/')));
        out.write(Files.readAllBytes(path));
        out.closeEntry();
      }
    }
    return jar;
  }

  /** One MCP tools/call over Streamable HTTP, in the given session. */
  private static JsonNode mcpCall(
      HttpClient client, String endpoint, String session, String tool, String arguments)
      throws Exception {
    String body =
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\""
            + tool
            + "\",\"arguments\":"
            + arguments
            + "}}";
    HttpResponse<String> response =
        client.send(
            HttpRequest.newBuilder(URI.create(endpoint))
                .header("Content-Type", "application/json")
                .header("Accept", "application/json, text/event-stream")
                .header("Mcp-Session-Id", session)
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertEquals(200, response.statusCode(), response.body());
    JsonNode result = Json.parse(response.body()).path("result");
    assertTrue(!result.path("isError").asBoolean(), response.body());
    return result.path("structuredContent");
  }

  /**
   * The README's collaboration scenario: agent A, over MCP, records a decision and a rule and hands
   * off; agent B, with the command over gRPC, resumes the handoff, sees the project's rule from its
   * session, and claims the next task.
   */
  @Test
  void twoAgentsHandWorkOverAcrossTransports() throws Exception {
    try (Served served = serve()) {
      HttpClient client = HttpClient.newHttpClient();
      String endpoint = served.mcp() + "?project=scenario&agent=agent-a";
      HttpResponse<String> initialized =
          client.send(
              HttpRequest.newBuilder(URI.create(endpoint))
                  .header("Content-Type", "application/json")
                  .header("Accept", "application/json, text/event-stream")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
                              + "\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
                              + "\"clientInfo\":{\"name\":\"agent-a\",\"version\":\"1\"}}}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      String session = initialized.headers().firstValue("Mcp-Session-Id").orElseThrow();
      mcpCall(
          client,
          endpoint,
          session,
          "sgm_store",
          "{\"id\":\"use-h2\",\"type\":\"decision\",\"content\":\"Keep H2\","
              + "\"record\":{\"id\":\"use-h2\",\"type\":\"decision\",\"data\":{\"status\":\"accepted\",\"rationale\":\"no setup\"}}}");
      mcpCall(
          client,
          endpoint,
          session,
          "sgm_store",
          "{\"record\":{\"id\":\"no-force-push\",\"type\":\"rule\",\"data\":{\"statement\":\"never force-push\",\"severity\":\"must\"}}}");
      mcpCall(
          client,
          endpoint,
          session,
          "sgm_store",
          "{\"record\":{\"id\":\"migrate\",\"type\":\"task\",\"data\":{\"state\":\"open\"}}}");
      mcpCall(
          client,
          endpoint,
          session,
          "sgm_store",
          "{\"record\":{\"id\":\"to-b\",\"type\":\"handoff\",\"links\":[\"migrate\"],\"data\":{"
              + "\"from_agent\":\"agent-a\",\"state\":\"open\",\"summary\":\"finish the migration\",\"context\":[\"use-h2\"]}}}");

      String project = "{\"project\":\"scenario\"}";
      String session2 = "{\"project\":\"scenario\",\"session\":\"agent-b\"}";
      String grpc = served.grpc();
      Result resumed =
          sgm(
              DIST,
              Map.of(),
              "--remote",
              grpc,
              "handoffs.resume",
              "{\"scope\":" + project + ",\"id\":\"to-b\"}");
      assertEquals(0, resumed.code(), resumed.err());
      List<String> records = new ArrayList<>();
      Json.parse(resumed.out()).path("records").forEach(r -> records.add(r.path("id").asText()));
      assertEquals(List.of("use-h2", "migrate"), records);
      Result accepted =
          sgm(
              DIST,
              Map.of(),
              "--remote",
              grpc,
              "handoffs.accept",
              "{\"scope\":" + project + ",\"id\":\"to-b\",\"agent\":\"agent-b\"}");
      assertEquals(0, accepted.code(), accepted.err());
      Result rules =
          sgm(DIST, Map.of(), "--remote", grpc, "rules.active", "{\"scope\":" + session2 + "}");
      assertTrue(rules.out().contains("never force-push"), rules.out() + rules.err());
      Result ready =
          sgm(DIST, Map.of(), "--remote", grpc, "tasks.ready", "{\"scope\":" + project + "}");
      assertTrue(ready.out().contains("\"migrate\""), ready.out());
      Result claimed =
          sgm(
              DIST,
              Map.of(),
              "--remote",
              grpc,
              "tasks.claim",
              "{\"scope\":" + project + ",\"id\":\"migrate\",\"agent\":\"agent-b\"}");
      assertEquals(0, claimed.code(), claimed.err());
      assertEquals(
          "agent-b",
          Json.parse(claimed.out()).path("record").path("data").path("assignee").asText());
    }
  }

  /**
   * The official MCP client v2 in each of its version modes (legacy, auto, pinned 2026-07-28) over
   * stdio (two agents' {@code sgm mcp} on one data directory) and Streamable HTTP: it validates
   * every structured result against the tool's output schema, and a subscription sees the other
   * agent's store.
   */
  @Test
  void theOfficialClientV2DrivesItInEveryVersionMode() throws Exception {
    Path node = Path.of("src", "test", "node");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isDirectory(node.resolve("node_modules/@modelcontextprotocol/client")),
        "the MCP client v2 is not installed: npm ci --prefix sgm-distribution/src/test/node (.ci/run does)");
    try (Served served = serve()) {
      Path output = temp.resolve("node-v2.log");
      ProcessBuilder builder =
          new ProcessBuilder(
                  "node",
                  node.resolve("mcp-client-v2.mjs").toString(),
                  DIST.resolve("bin/sgm").toString(),
                  served.mcp(),
                  temp.resolve("v2-data").toString())
              .redirectErrorStream(true)
              .redirectOutput(output.toFile());
      builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
      Process client = builder.start();
      assertTrue(client.waitFor(300, TimeUnit.SECONDS));
      String log = Files.readString(output);
      System.out.println(log);
      assertEquals(0, client.exitValue(), log);
      assertTrue(log.contains(" 0 failed"), log);
    }
  }

  /**
   * The generic server scenarios of the MCP conformance suites against the Streamable HTTP
   * endpoint: the newest release for the 2025 revisions, and the newest published package (a
   * pre-release) for 2026-07-28. Scenarios that call fixture tools of the suite's own test server
   * (which SGM does not have) report those checks as untestable; every other check must pass.
   */
  @Test
  void theMcpConformanceScenariosPass() throws Exception {
    Path node = Path.of("src", "test", "node");
    Path node22 = node.resolve("node_modules/.bin/node");
    Path suite = node.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    Path suite2026 = node.resolve("node_modules/conformance-2026/dist/index.js");
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Files.isExecutable(node22) && Files.exists(suite) && Files.exists(suite2026),
        "the conformance suites are not installed: npm ci --prefix sgm-distribution/src/test/node (.ci/run does)");
    try (Served served = serve()) {
      for (String scenario :
          List.of(
              "server-initialize",
              "ping",
              "tools-list",
              "tools-call-error",
              "resources-list",
              "dns-rebinding-protection")) {
        conformance(node22, suite, served.mcp(), scenario, null);
      }
      for (String scenario :
          List.of(
              "server-stateless",
              "caching",
              "http-header-validation",
              "sep-2164-resource-not-found",
              "dns-rebinding-protection",
              "tools-list",
              "resources-list",
              "prompts-list")) {
        conformance(node22, suite2026, served.mcp(), scenario, "2026-07-28");
      }
      for (String scenario : List.of("server-initialize", "server-session-lifecycle")) {
        conformance(node22, suite2026, served.mcp(), scenario, "2025-11-25");
      }
    }
  }

  /** Runs one scenario; every check passes, or is untestable for want of a fixture tool. */
  private void conformance(Path node22, Path suite, String url, String scenario, String version)
      throws Exception {
    Path results = temp.resolve("conformance-" + scenario + "-" + version);
    Path output = temp.resolve("conformance-" + scenario + "-" + version + ".log");
    List<String> command =
        new ArrayList<>(
            List.of(
                node22.toString(),
                suite.toString(),
                "server",
                "--url",
                url,
                "--scenario",
                scenario,
                "-o",
                results.toString()));
    if (version != null) {
      command.addAll(List.of("--spec-version", version));
    }
    Process run =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    assertTrue(run.waitFor(120, TimeUnit.SECONDS), scenario);
    String log = Files.readString(output);
    List<String> failed = new ArrayList<>();
    int checks = 0;
    try (Stream<Path> files = Files.walk(results)) {
      for (Path file :
          files.filter(f -> f.getFileName().toString().equals("checks.json")).toList()) {
        for (JsonNode check : Json.parse(Files.readAllBytes(file))) {
          checks++;
          if (check.path("status").asText().equals("FAILURE")
              && !check.path("details").path("untestable").asBoolean(false)) {
            failed.add(check.path("id").asText() + ": " + check.path("errorMessage").asText());
          }
        }
      }
    }
    assertTrue(checks > 0, scenario + " " + version + " ran no check\n" + log);
    assertEquals(List.of(), failed, scenario + " " + version + "\n" + log);
  }
}
