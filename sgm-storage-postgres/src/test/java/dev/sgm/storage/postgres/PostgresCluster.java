package dev.sgm.storage.postgres;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A throw-away PostgreSQL server for the tests, started once per JVM by {@code scripts/postgres.sh}
 * (which installs PostgreSQL from the distribution's packages when missing and runs it as a
 * non-root user on a free loopback port) and stopped when the JVM ends. Tests that need it are
 * skipped, with the reason, when no server can be started.
 */
final class PostgresCluster {
  private static final Path SCRIPT = Path.of("..", "scripts", "postgres.sh").toAbsolutePath();
  private static final AtomicInteger DATABASES = new AtomicInteger();
  private static PostgresCluster shared;
  private static String failure;

  final Path dir;
  final String url;
  final int port;

  private PostgresCluster(Path dir, String url, int port) {
    this.dir = dir;
    this.url = url;
    this.port = port;
  }

  /** The server, started on first use; skips the calling test when it cannot start. */
  static synchronized PostgresCluster get() {
    if (shared == null && failure == null) {
      try {
        shared = start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> shared.run("stop")));
      } catch (IOException | RuntimeException e) {
        failure = e.getMessage();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = "interrupted";
      }
    }
    if (shared == null && System.getenv("SGM_REQUIRE_POSTGRES") != null) {
      // CI sets this: there, a missing server is a failure, not a reason to skip.
      throw new IllegalStateException("no PostgreSQL server could be started: " + failure);
    }
    assumeTrue(shared != null, () -> "no PostgreSQL server could be started: " + failure);
    return shared;
  }

  private static PostgresCluster start() throws IOException, InterruptedException {
    // Under /tmp, which the server's own user can reach (the build tree may not be).
    Path dir = Path.of("/tmp", "sgm-pg-test-" + ProcessHandle.current().pid());
    Process process =
        new ProcessBuilder(SCRIPT.toString(), "start", dir.toString())
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(300, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException(SCRIPT + " start failed (exit " + process.exitValue() + ")");
    }
    Map<String, String> values = new HashMap<>();
    out.lines()
        .filter(l -> l.contains("="))
        .forEach(l -> values.put(l.substring(0, l.indexOf('=')), l.substring(l.indexOf('=') + 1)));
    int port = Integer.parseInt(Files.readString(dir.resolve("port")).trim());
    return new PostgresCluster(dir, values.get("url"), port);
  }

  /** Runs {@code scripts/postgres.sh command DIR}. */
  void run(String command) {
    try {
      Process process =
          new ProcessBuilder(List.of(SCRIPT.toString(), command, dir.toString()))
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
        throw new IllegalStateException(SCRIPT + " " + command + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A new, empty database on this server; its JDBC URL. */
  String newDatabase() {
    String name = "t" + ProcessHandle.current().pid() + "_" + DATABASES.incrementAndGet();
    try (Connection c = DriverManager.getConnection(url, "sgm", "sgm");
        Statement s = c.createStatement()) {
      s.execute("CREATE DATABASE " + name);
    } catch (SQLException e) {
      throw new IllegalStateException(e);
    }
    return url.substring(0, url.lastIndexOf('/') + 1) + name;
  }

  /** The configuration of a node on the database at {@code url}. */
  static Map<String, String> nodeConfig(String url) {
    Map<String, String> config = new HashMap<>();
    config.put("storage", "postgres");
    config.put(PostgresSettings.URL, url);
    config.put(PostgresSettings.USER, "sgm");
    config.put(PostgresSettings.PASSWORD, "sgm");
    return config;
  }
}
