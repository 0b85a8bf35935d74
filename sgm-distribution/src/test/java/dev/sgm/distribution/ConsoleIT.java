package dev.sgm.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The web console of the assembled distribution, used in a real headless Chromium (Debian's {@code
 * chromium}, driven by puppeteer-core): {@code console-browser.mjs} picks a scope, searches, opens,
 * edits, deletes and undeletes a record, claims a task, and signs in with a token that grants one
 * project. Screenshots of each page land in {@code target/console-screenshots}.
 */
class ConsoleIT {
  private static final Path DIST = Path.of(System.getProperty("sgm.dist", "target/sgm"));
  private static final Path NODE = Path.of("src", "test", "node").toAbsolutePath();
  private static final Path SHOTS = Path.of("target", "console-screenshots").toAbsolutePath();
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

  @TempDir Path temp;

  /** A running {@code bin/sgm serve} on free ports, and its HTTP address. */
  private record Served(Process process, String http) implements AutoCloseable {
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

  private Served serve(String... arguments) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                DIST.resolve("bin/sgm").toString(),
                "serve",
                "-D",
                "http.port=0",
                "-D",
                "grpc.port=0",
                "-D",
                "mcp.port=0",
                "-D",
                "http.log-requests=false"));
    command.addAll(List.of(arguments));
    Path log = Files.createTempFile(temp, "serve", ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    Process process = builder.redirectOutput(log.toFile()).start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline && !Files.readString(log).contains("ready in")) {
      Thread.sleep(20);
    }
    String text = Files.readString(log);
    if (!text.contains("ready in")) {
      process.destroyForcibly();
    }
    assertTrue(text.contains("ready in"), text);
    Matcher http = Pattern.compile("serving (http://127\\.0\\.0\\.1:\\d+)\\s").matcher(text);
    assertTrue(http.find(), text);
    return new Served(process, http.group(1));
  }

  private static void assumeBrowser() {
    Assumptions.assumeTrue(
        Files.isDirectory(NODE.resolve("node_modules/puppeteer-core")),
        "puppeteer-core is not installed: npm ci --prefix sgm-distribution/src/test/node (.ci/run does)");
    Assumptions.assumeTrue(
        Files.isExecutable(CHROMIUM), "chromium is not installed (.ci/run installs it)");
  }

  /** Runs the browser script and asserts that every one of its checks passed. */
  private void browse(String... arguments) throws Exception {
    List<String> command =
        new ArrayList<>(List.of("node", NODE.resolve("console-browser.mjs").toString()));
    command.addAll(List.of(arguments));
    Path output = Files.createTempFile(temp, "browser", ".log");
    Process browser =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    boolean finished = browser.waitFor(240, TimeUnit.SECONDS);
    if (!finished) {
      browser.destroyForcibly();
    }
    String log = Files.readString(output);
    System.out.println(log);
    assertTrue(finished, log);
    assertEquals(0, browser.exitValue(), log);
    assertTrue(log.contains(" passed, 0 failed"), log);
  }

  @Test
  void aPersonSeesSearchesAndCorrectsMemoryInTheConsole() throws Exception {
    assumeBrowser();
    try (Served served = serve("--memory")) {
      browse(served.http(), SHOTS.toString());
    }
  }

  @Test
  void aTokenThatGrantsOneProjectNeverShowsTheOther() throws Exception {
    assumeBrowser();
    Path data = temp.resolve("data");
    Path out = temp.resolve("token.txt");
    Process create =
        new ProcessBuilder(
                DIST.resolve("bin/sgm").toString(),
                "token",
                "create",
                "--data",
                data.toString(),
                "--principal",
                "alice",
                "--grant",
                "project=alpha:read_write",
                "--agent",
                "alice")
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    assertTrue(create.waitFor(60, TimeUnit.SECONDS));
    Matcher token = Pattern.compile("sgm_[A-Za-z0-9_-]+").matcher(Files.readString(out));
    assertTrue(token.find(), Files.readString(out));
    String owner = "console-owner-token-0123456789abcdef";
    try (Served served = serve("--data", data.toString(), "-D", "auth.token=" + owner)) {
      browse(served.http(), SHOTS.toString(), owner, token.group());
    }
  }

  @Test
  void withTheConsoleTurnedOffTheRootIsNotFoundAsBefore() throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    for (boolean on : new boolean[] {true, false}) {
      String[] options =
          on
              ? new String[] {"--memory"}
              : new String[] {"--memory", "-D", "webapps.disabled=console"};
      try (Served served = serve(options)) {
        HttpResponse<String> root =
            http.send(
                HttpRequest.newBuilder(URI.create(served.http() + "/")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(on ? 200 : 404, root.statusCode(), root.body());
        if (on) {
          assertTrue(
              root.headers()
                  .firstValue("Content-Security-Policy")
                  .orElse("")
                  .startsWith("default-src 'self'"));
          assertTrue(root.body().contains("/console/app.js"), root.body());
        } else {
          assertTrue(root.body().contains("\"not_found\""), root.body());
        }
      }
    }
  }
}
