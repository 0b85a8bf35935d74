package dev.sgm.transport.cli;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.core.CoreOperations;
import dev.sgm.tck.ContractTck;
import dev.sgm.tck.CoreConformanceTck;
import dev.sgm.tck.HistoryTck;
import dev.sgm.tck.Requirement;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sgm tck URL}: the conformance kit against any SGM server over HTTP: a line per test with
 * the rule, its strength and the outcome (skips with their reason), a summary, and JUnit XML on
 * request.
 */
@Command(
    name = "tck",
    mixinStandardHelpOptions = true,
    description = "Run the conformance kit against the SGM server at URL and report each rule.")
final class Tck implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      index = "0",
      paramLabel = "URL",
      description = "The server, e.g. http://127.0.0.1:7410.")
  String url;

  @Option(
      names = "--junit",
      paramLabel = "DIR",
      description = "Also write JUnit XML reports to DIR.")
  Path junit;

  /** The server under test, for the suites below; one run at a time. */
  private static volatile SgmClient target;

  /** The seed's C1–C12 against the target. */
  public static final class Core extends CoreConformanceTck {
    @Override
    protected SgmClient client() {
      return target;
    }
  }

  /** The contract suite against the target. */
  public static final class Contract extends ContractTck {
    @Override
    protected SgmClient client() {
      return target;
    }
  }

  /** The collaboration profile suite against the target (skipped unless it advertises it). */
  public static final class Collaboration extends dev.sgm.tck.CollaborationTck {
    @Override
    protected SgmClient client() {
      return target;
    }
  }

  /** The code profile suite against the target (skipped unless it advertises it). */
  public static final class Code extends dev.sgm.tck.CodeTck {
    @Override
    protected SgmClient client() {
      return target;
    }
  }

  /** The history profile suite against the target (skipped unless it advertises history). */
  public static final class History extends HistoryTck {
    @Override
    protected SgmClient client() {
      return target;
    }
  }

  private record Outcome(String status, String level, String rule, String name, String reason) {}

  @Override
  public Integer call() {
    Backend backend = Backend.remote(url);
    try {
      backend.call(CoreOperations.DISCOVER, dev.sgm.api.Json.object());
    } catch (SgmException e) {
      throw new SgmException(
          ErrorCode.UNAVAILABLE, url + " does not answer as an SGM server: " + e.getMessage());
    }
    target = backend;
    List<Outcome> outcomes = new ArrayList<>();
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(
                selectClass(Core.class), selectClass(Contract.class), selectClass(History.class))
            .build();
    Launcher launcher = LauncherFactory.create();
    List<TestExecutionListener> listeners = new ArrayList<>();
    listeners.add(
        new TestExecutionListener() {
          @Override
          public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest()) {
              outcomes.add(outcome(id, "SKIP", reason));
            }
          }

          @Override
          public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (!id.isTest()) {
              return;
            }
            String reason = result.getThrowable().map(t -> firstLine(t.getMessage())).orElse("");
            String status =
                switch (result.getStatus()) {
                  case SUCCESSFUL -> "PASS";
                  case ABORTED -> "SKIP";
                  case FAILED -> "FAIL";
                };
            outcomes.add(outcome(id, status, reason));
          }
        });
    if (junit != null) {
      listeners.add(new LegacyXmlReportGeneratingListener(junit, spec.commandLine().getErr()));
    }
    launcher.execute(request, listeners.toArray(TestExecutionListener[]::new));
    target = null;
    PrintWriter out = spec.commandLine().getOut();
    long failed = 0;
    long passed = 0;
    long skipped = 0;
    for (Outcome o : outcomes) {
      out.printf(
          "%-4s %-6s %-26s %s%s%n",
          o.status(),
          o.level(),
          o.rule(),
          o.name(),
          o.reason().isEmpty() || o.status().equals("PASS") ? "" : " -- " + o.reason());
      switch (o.status()) {
        case "PASS" -> passed++;
        case "FAIL" -> failed++;
        default -> skipped++;
      }
    }
    out.printf("tck: %d passed, %d failed, %d skipped%n", passed, failed, skipped);
    if (junit != null) {
      out.println("JUnit XML reports in " + junit);
    }
    out.flush();
    return failed == 0 ? ExitCodes.OK : ExitCodes.FAILED;
  }

  private static Outcome outcome(TestIdentifier id, String status, String reason) {
    String rule = "";
    String level = "";
    if (id.getSource().orElse(null) instanceof MethodSource source) {
      Optional<Requirement> requirement = requirement(source);
      rule = requirement.map(Requirement::rule).orElse("");
      level = requirement.map(r -> r.level().name()).orElse("");
    }
    return new Outcome(status, level, rule, id.getDisplayName(), reason == null ? "" : reason);
  }

  private static Optional<Requirement> requirement(MethodSource source) {
    try {
      Class<?> type = Class.forName(source.getClassName(), false, Tck.class.getClassLoader());
      for (Class<?> c = type; c != null; c = c.getSuperclass()) {
        for (Method method : c.getDeclaredMethods()) {
          if (method.getName().equals(source.getMethodName())) {
            return Optional.ofNullable(method.getAnnotation(Requirement.class));
          }
        }
      }
    } catch (ClassNotFoundException e) {
      // Not one of ours; no rule to show.
    }
    return Optional.empty();
  }

  private static String firstLine(String text) {
    return text == null ? "" : text.lines().findFirst().orElse("");
  }
}
