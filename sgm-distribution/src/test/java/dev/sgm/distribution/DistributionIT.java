package dev.sgm.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Json;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
    assertTrue(process.waitFor(60, TimeUnit.SECONDS));
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
        List.of("core", "collaboration", "history", "grpc", "http", "cli"),
        capabilities(DIST, Map.of()));
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
        List.of("core", "collaboration", "grpc", "http", "cli"), capabilities(dist, Map.of()));
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
    assertEquals(List.of("core", "collaboration", "grpc", "http", "cli"), capabilities(DIST, env));
    Result call =
        sgm(
            DIST,
            env,
            "--memory",
            "history.versions",
            "{\"scope\":{\"project\":\"p\"},\"id\":\"x\"}");
    assertEquals(6, call.code(), call.err());
    assertEquals(
        List.of("core", "collaboration", "history", "cli"),
        capabilities(DIST, Map.of("SGM_TRANSPORTS_DISABLED", "http,grpc")));
  }

  @Test
  void twoPluginsOfOneNameStopStartUp() throws Exception {
    Path dist = copy();
    Files.copy(duplicateHistoryPlugin(dist), dist.resolve("plugins/duplicate-history.jar"));
    Result result = sgm(dist, Map.of(), "--memory", "discover");
    assertEquals(2, result.code(), result.err());
    assertTrue(result.err().contains("two profile plugins are named 'history'"), result.err());
  }

  @Test
  void serveAnswersAndStopsOnSigterm() throws Exception {
    List<String> command =
        List.of(
            DIST.resolve("bin/sgm").toString(),
            "serve",
            "--memory",
            "-D",
            "http.port=0",
            "-D",
            "grpc.port=0");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    Path log = temp.resolve("serve.log");
    Process server = builder.redirectOutput(log.toFile()).start();
    String url = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (url == null && System.nanoTime() < deadline) {
      Matcher m = Pattern.compile("serving (http://\\S+)").matcher(Files.readString(log));
      url = m.find() ? m.group(1) : null;
      Thread.sleep(20);
    }
    assertTrue(url != null, Files.readString(log));
    HttpResponse<String> health =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url + "/healthz")).build(),
                HttpResponse.BodyHandlers.ofString());
    assertEquals(200, health.statusCode());
    server.destroy(); // SIGTERM
    assertTrue(server.waitFor(30, TimeUnit.SECONDS));
    assertTrue(Files.readString(log).contains("ready in"), Files.readString(log));
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

  @Test
  void theReadmeCommandExamplesRunAsWritten() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    String block =
        readme.substring(
            readme.indexOf("<!-- cli-examples -->"), readme.indexOf("<!-- /cli-examples -->"));
    Files.writeString(
        temp.resolve("record.json"),
        "{\"id\": \"r1\", \"type\": \"fact\", \"scope\": {\"project\": \"demo\"},"
            + " \"provenance\": {\"agent\": \"me\"}}");
    int ran = 0;
    for (String line : block.lines().toList()) {
      boolean command = line.startsWith("./sgm ") || line.startsWith("echo ");
      if (!command || line.contains("--remote") || line.contains("completion")) {
        continue;
      }
      String shell = line.replace("./sgm", DIST.resolve("bin/sgm").toString());
      ProcessBuilder builder = new ProcessBuilder("bash", "-c", shell).directory(temp.toFile());
      builder.environment().put("SGM_DATA_DIR", temp.resolve("readme-data").toString());
      builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
      Path output = temp.resolve("readme-" + ran + ".txt");
      Process process = builder.redirectErrorStream(true).redirectOutput(output.toFile()).start();
      assertTrue(process.waitFor(60, TimeUnit.SECONDS));
      assertEquals(0, process.exitValue(), line + "\n" + Files.readString(output));
      ran++;
    }
    assertTrue(ran >= 7, "ran " + ran);
    assertTrue(Files.exists(temp.resolve("demo.jsonl")), "the export wrote its file");
  }

  /**
   * The README's collaboration scenario: agent A records a decision and a rule and hands off over
   * HTTP (over MCP once that transport exists); agent B, with the command over gRPC, resumes the
   * handoff, sees the project's rule from its session, and claims the next task.
   */
  @Test
  void twoAgentsHandWorkOverAcrossTransports() throws Exception {
    List<String> command =
        List.of(
            DIST.resolve("bin/sgm").toString(),
            "serve",
            "--memory",
            "-D",
            "http.port=0",
            "-D",
            "grpc.port=0");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    Path log = temp.resolve("scenario.log");
    Process server = builder.redirectOutput(log.toFile()).start();
    try {
      String http = null;
      String grpc = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while ((http == null || grpc == null) && System.nanoTime() < deadline) {
        String text = Files.readString(log);
        Matcher h = Pattern.compile("serving (http://\\S+)").matcher(text);
        Matcher g = Pattern.compile("serving (grpc://\\S+)").matcher(text);
        http = h.find() ? h.group(1) : null;
        grpc = g.find() ? g.group(1) : null;
        Thread.sleep(20);
      }
      assertTrue(http != null && grpc != null, Files.readString(log));
      HttpClient client = HttpClient.newHttpClient();
      String project = "{\"project\":\"scenario\"}";
      for (String record :
          List.of(
              "{\"id\":\"use-h2\",\"type\":\"decision\",\"scope\":"
                  + project
                  + ",\"provenance\":{\"agent\":\"agent-a\"},\"data\":{\"status\":\"accepted\",\"rationale\":\"no setup\"}}",
              "{\"id\":\"no-force-push\",\"type\":\"rule\",\"scope\":"
                  + project
                  + ",\"provenance\":{\"agent\":\"agent-a\"},\"data\":{\"statement\":\"never force-push\",\"severity\":\"must\"}}",
              "{\"id\":\"migrate\",\"type\":\"task\",\"scope\":"
                  + project
                  + ",\"provenance\":{\"agent\":\"agent-a\"},\"data\":{\"state\":\"open\"}}",
              "{\"id\":\"to-b\",\"type\":\"handoff\",\"scope\":"
                  + project
                  + ",\"links\":[\"migrate\"],\"provenance\":{\"agent\":\"agent-a\"},\"data\":{\"from_agent\":\"agent-a\","
                  + "\"state\":\"open\",\"summary\":\"finish the migration\",\"context\":[\"use-h2\"]}}")) {
        HttpResponse<String> stored =
            client.send(
                HttpRequest.newBuilder(URI.create(http + "/v1/store"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString("{\"record\":" + record + "}"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, stored.statusCode(), stored.body());
      }
      String session = "{\"project\":\"scenario\",\"session\":\"agent-b\"}";
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
          sgm(DIST, Map.of(), "--remote", grpc, "rules.active", "{\"scope\":" + session + "}");
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
    } finally {
      server.destroy();
      server.waitFor(30, TimeUnit.SECONDS);
    }
  }
}
