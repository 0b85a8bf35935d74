package dev.sgm.example.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.spi.ConformanceKit.Verdict;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.tck.KitRunner;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit as {@code sgm tck} runs it, against the engine in this JVM with this plugin present: it
 * finds the profiles' suites through {@code ProfileSuite}, its own and this plugin's ({@link
 * ExampleSuite}), runs each that the target advertises and skips the others with the reason, and a
 * failing profile decides the verdict.
 */
class ExampleKitTest {
  private record Run(Verdict verdict, String out) {}

  private static SgmRuntime runtime;

  /** The engine in this JVM, with this plugin, spoken to through JSON text as a transport would. */
  private static synchronized SgmClient engine() {
    if (runtime == null) {
      runtime =
          SgmRuntime.open(ConfigLoader.load(Map.of(ConfigLoader.STORAGE_MEMORY, "true"), Map.of()));
      Runtime.getRuntime().addShutdownHook(new Thread(runtime::close));
    }
    return (operation, request) ->
        Json.parse(
            Json.write(
                runtime
                    .service()
                    .invoke(Caller.embedded(), operation, Json.parse(Json.write(request)))));
  }

  private static Run run(SgmClient target, Path reports) {
    StringWriter text = new StringWriter();
    Verdict verdict = new KitRunner().run(target, reports, new PrintWriter(text));
    return new Run(verdict, text.toString());
  }

  /** The verdict line of the suite named {@code title}. */
  private static String suite(Run run, String title) {
    return run.out()
        .lines()
        .filter(l -> l.startsWith("suite " + title + ": "))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no suite " + title + " in\n" + run.out()));
  }

  @Test
  void theEnginePassesEveryProfilesSuiteThePluginsToo() {
    Run run = run(engine(), null);
    assertEquals(Verdict.CONFORMING, run.verdict(), run.out());
    assertEquals(
        "suite example profile: conforming (4 passed, 0 failed, 0 skipped)",
        suite(run, "example profile"));
    assertTrue(
        run.out().matches("(?s).*\nPASS MUST +example\\.greet +example.greet greets the name.*"),
        run.out());
    for (String profile : List.of("collaboration", "code", "history")) {
      assertTrue(
          suite(run, profile + " profile").matches(".*: conforming \\([1-9]\\d* passed, 0 .*"),
          run.out());
    }
    List<String> order =
        run.out()
            .lines()
            .filter(l -> l.startsWith("suite "))
            .limit(5)
            .map(l -> l.split(" ")[1])
            .toList();
    assertEquals(
        List.of("core", "collaboration", "code", "history", "example"),
        order,
        "the core cases, then the kit's own profiles in the order it lists them, then a plugin's");
  }

  @Test
  void aWrongGreetingFailsTheExampleSuiteAndWithItTheVerdict() {
    SgmClient real = engine();
    SgmClient wrong =
        (operation, request) -> {
          JsonNode response = real.call(operation, request);
          if (!operation.equals("example.greet")) {
            return response;
          }
          ObjectNode greeted = response.deepCopy();
          greeted.put("greeting", "Hello, World!");
          return greeted;
        };
    Run run = run(wrong, null);
    assertEquals(Verdict.PROFILE_FAILED, run.verdict(), run.out());
    assertEquals(
        "suite example profile: NOT CONFORMING (3 passed, 1 failed, 0 skipped)",
        suite(run, "example profile"));
    assertTrue(
        run.out().matches("(?s).*\nFAIL MUST +example\\.greet +example.greet greets the name.*"),
        run.out());
    assertTrue(
        run.out()
            .contains(
                "\nverdict: NOT CONFORMING: the core cases passed, but the advertised"
                    + " example profile failed\n"),
        run.out());
  }

  @Test
  void aProfileTheTargetDoesNotAdvertiseIsSkippedWithTheReason(@TempDir Path reports)
      throws Exception {
    SgmClient real = engine();
    SgmClient withoutExample =
        (operation, request) -> {
          JsonNode response = real.call(operation, request);
          if (!operation.equals("discover")) {
            return response;
          }
          ObjectNode discovery = response.deepCopy();
          ArrayNode capabilities = discovery.putArray("capabilities");
          response
              .path("capabilities")
              .forEach(
                  c -> {
                    if (!c.asText().equals("example")) {
                      capabilities.add(c);
                    }
                  });
          return discovery;
        };
    Run run = run(withoutExample, reports);
    assertEquals(
        "suite example profile: not run: the implementation does not advertise 'example'"
            + " (0 passed, 0 failed, 4 skipped)",
        suite(run, "example profile"));
    assertTrue(
        run.out()
            .matches(
                "(?s).*\nSKIP MUST +example\\.greet +example.greet greets the name it is given"
                    + " -- the implementation does not advertise 'example'\n.*"),
        run.out());
    assertTrue(suite(run, "collaboration profile").contains(": conforming ("), run.out());
    // The JUnit XML shows the suite's tests skipped, beside those that ran, as any skip.
    String report = Files.readString(reports.resolve("TEST-junit-jupiter.xml"));
    List<String> example =
        Pattern.compile(
                "<testcase [^>]*classname=\"dev\\.sgm\\.example\\.tck\\.ExampleSuite\"[^>]*>\\s*<skipped")
            .matcher(report)
            .results()
            .map(MatchResult::group)
            .toList();
    assertEquals(4, example.size(), report);
  }
}
