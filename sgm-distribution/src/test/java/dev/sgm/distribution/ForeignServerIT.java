package dev.sgm.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code sgm tck} judges an implementation written apart from this project: a small Python server
 * of the core over the HTTP binding ({@code src/test/python/foreign_sgm_server.py}). The honest
 * server conforms (exit code 0) although it ignores this project's further rules and advertises no
 * profile; each bug it can plant fails exactly its seed case, with exit code 1. The output of each
 * run is kept in {@code target/foreign-tck/}.
 */
class ForeignServerIT {
  private static final Path DIST = Path.of(System.getProperty("sgm.dist", "target/sgm"));
  private static final Path SERVER =
      Path.of("src", "test", "python", "foreign_sgm_server.py").toAbsolutePath();
  private static final Path PYTHON = Path.of("/usr/bin/python3");
  private static final Path OUTPUTS = Path.of("target", "foreign-tck");
  private static final String CORE = "suite core (C1-C12, docs/spec): ";

  @TempDir Path temp;

  private record Run(int code, List<String> lines) {
    String text() {
      return String.join("\n", lines);
    }

    /** The rules of the core (C1–C12) that the run reports as failed. */
    List<String> failedCoreCases() {
      // A rule line is "STATUS LEVEL  RULE (padded to 26)  test name -- reason".
      return lines.stream()
          .filter(l -> l.startsWith("FAIL ") && l.length() > 38)
          .map(l -> l.substring(12, 38).trim())
          .filter(rule -> rule.matches("C[0-9]+"))
          .toList();
    }

    List<String> suites() {
      return lines.stream().filter(l -> l.startsWith("suite ")).toList();
    }

    String verdict() {
      return lines.stream().filter(l -> l.startsWith("verdict: ")).findFirst().orElse("");
    }
  }

  /** Starts the Python server with {@code bug} planted (or none), runs the kit, stops it. */
  private Run tck(String bug) throws Exception {
    assertTrue(Files.isExecutable(PYTHON), "the foreign server runs on " + PYTHON);
    List<String> command = new ArrayList<>(List.of(PYTHON.toString(), SERVER.toString()));
    if (bug != null) {
      command.addAll(List.of("--bug", bug));
    }
    // Its output goes to a file, so that nothing it writes can block it on a full pipe.
    Path log = temp.resolve("server.log");
    Process server =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    try {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (System.nanoTime() < deadline && !Files.readString(log).contains("\n")) {
        Thread.sleep(20);
      }
      String first = Files.readString(log).lines().findFirst().orElse("");
      assertTrue(first.startsWith("listening on "), "the server says: " + first);
      String url = first.substring("listening on ".length()).trim();
      Path out = temp.resolve("tck.txt");
      ProcessBuilder kit =
          new ProcessBuilder(DIST.resolve("bin/sgm").toString(), "tck", url)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile());
      kit.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
      Process process = kit.start();
      assertTrue(process.waitFor(10, TimeUnit.MINUTES), "the kit finishes");
      Files.createDirectories(OUTPUTS);
      Files.copy(
          out,
          OUTPUTS.resolve((bug == null ? "honest" : bug) + ".txt"),
          java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      return new Run(process.exitValue(), Files.readAllLines(out));
    } finally {
      server.destroy();
      server.waitFor(10, TimeUnit.SECONDS);
      server.destroyForcibly();
    }
  }

  @Test
  void theHonestServerConformsThoughItKeepsNoneOfTheFurtherRules() throws Exception {
    Run run = tck(null);
    assertEquals(0, run.code(), "the core passed: exit code 0\n" + run.text());
    List<String> suites = run.suites();
    assertTrue(suites.contains(CORE + "conforming (12 passed, 0 failed, 0 skipped)"), run.text());
    assertEquals(List.of(), run.failedCoreCases(), run.text());
    // What it does not advertise is skipped with the reason, never failed.
    for (String profile : List.of("collaboration", "code", "history")) {
      assertTrue(
          suites.stream()
              .anyMatch(
                  l ->
                      l.matches(
                          "suite "
                              + profile
                              + " profile: not run: the implementation does not advertise '"
                              + profile
                              + "' \\(0 passed, 0 failed, [1-9][0-9]* skipped\\)")),
          profile + "\n" + run.text());
    }
    assertTrue(
        suites.contains(
            "suite relevance (docs/spec/retrieval.md, this project's further rules): not run: the"
                + " implementation does not advertise 'retrieval' in discovery"
                + " (0 passed, 0 failed, 31 skipped)"),
        run.text());
    assertTrue(
        suites.stream()
            .anyMatch(
                l ->
                    l.startsWith(
                            "suite change feed (docs/spec/changes.md, this project's further rules):"
                                + " not run: ")
                        && l.contains(" (0 passed, 0 failed, ")),
        run.text());
    // It keeps to the core cases only, so some of this project's further rules fail, and the exit
    // code does not change for them.
    List<String> furtherFailing =
        suites.stream()
            .filter(l -> l.contains(" this project's further rules): NOT CONFORMING"))
            .toList();
    assertTrue(!furtherFailing.isEmpty(), run.text());
    assertTrue(
        run.verdict()
            .matches(
                "verdict: conforming: the core cases and every advertised profile passed;"
                    + " [1-9][0-9]* of this project's further rules failed"),
        run.text());
  }

  @ParameterizedTest(name = "--bug {0} fails {1}")
  @CsvSource({"leak-narrower, C6", "coerce-types, C4", "error-on-empty, C10", "drop-session, C3"})
  void eachPlantedBugFailsExactlyItsSeedCase(String bug, String rule) throws Exception {
    Run run = tck(bug);
    assertEquals(1, run.code(), "a seed core case failed: exit code 1\n" + run.text());
    assertEquals(List.of(rule), run.failedCoreCases(), run.text());
    assertTrue(
        run.suites().contains(CORE + "NOT CONFORMING (11 passed, 1 failed, 0 skipped)"),
        run.text());
    assertEquals("verdict: NOT CONFORMING: the core case " + rule + " failed", run.verdict());
  }
}
