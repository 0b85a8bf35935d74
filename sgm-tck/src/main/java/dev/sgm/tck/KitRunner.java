package dev.sgm.tck;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.sgm.api.SgmClient;
import dev.sgm.api.spi.ConformanceKit;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * Runs the kit's suites with the JUnit Platform launcher against any {@link SgmClient}: a line per
 * test with the rule, its strength and the outcome (skips with their reason), then a verdict per
 * suite (the seeds' core cases first, then each profile, then the contract's further rules), a
 * summary, and JUnit XML on request. {@code sgm tck URL} runs it when this module is present.
 */
public final class KitRunner implements ConformanceKit {
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
  public static final class Collaboration extends CollaborationTck {
    @Override
    protected SgmClient client() {
      return target;
    }
  }

  /** The code profile suite against the target (skipped unless it advertises it). */
  public static final class Code extends CodeTck {
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

  /** The change feed suite against the target (skipped unless it lists {@code changes}). */
  public static final class Changes extends ChangesTck {
    @Override
    protected SgmClient client() {
      return target;
    }
  }

  private record Outcome(
      String suite, String status, String level, String rule, String name, String reason) {}

  /** A suite of the kit: its class and how the verdict names it. */
  private record Suite(Class<?> type, String title) {}

  /**
   * Every suite, in the order of the verdict: the seeds' core cases first, then each profile (a
   * suite skips itself when the target does not advertise its profile), then the contract's further
   * rules, a suite per section of the contract. Each is named by the class that declares its tests,
   * so the contract's sections, which {@link Contract} runs together, are told apart.
   */
  private static final List<Suite> SUITES =
      List.of(
          new Suite(CoreConformanceTck.class, "core (the seeds' C1-C12)"),
          new Suite(CollaborationTck.class, "collaboration profile"),
          new Suite(CodeTck.class, "code profile"),
          new Suite(HistoryTck.class, "history profile"),
          new Suite(ChangesTck.class, "change feed"),
          contract(ContractRecordTck.class, "§1 the record"),
          contract(ContractScopeTck.class, "§2 scope and identity"),
          contract(ContractOperationsTck.class, "§3 operations"),
          contract(ContractDiscoveryTck.class, "§4 discovery"),
          contract(ContractErrorsTck.class, "§5 errors"));

  /** The classes the launcher runs, against the target. */
  private static final List<Class<?>> RUN =
      List.of(
          Core.class,
          Collaboration.class,
          Code.class,
          History.class,
          Changes.class,
          Contract.class);

  private static Suite contract(Class<?> section, String title) {
    return new Suite(section, "contract " + title + " (this project's further rules)");
  }

  @Override
  public synchronized Verdict run(SgmClient client, Path junit, PrintWriter out) {
    target = client;
    List<Outcome> outcomes = new ArrayList<>();
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(RUN.stream().map(type -> selectClass(type)).toList())
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
      listeners.add(new LegacyXmlReportGeneratingListener(junit, out));
    }
    launcher.execute(request, listeners.toArray(TestExecutionListener[]::new));
    target = null;
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
    boolean coreFailed = false;
    for (Suite suite : SUITES) {
      long[] counts = new long[3];
      for (Outcome o : outcomes) {
        if (o.suite().equals(suite.type().getName())) {
          counts[o.status().equals("PASS") ? 0 : o.status().equals("FAIL") ? 1 : 2]++;
        }
      }
      String verdict =
          counts[1] > 0
              ? "NOT CONFORMING"
              : counts[0] == 0 ? "not run (not advertised)" : "conforming";
      coreFailed |= suite.type() == CoreConformanceTck.class && counts[1] > 0;
      out.printf(
          "suite %s: %s (%d passed, %d failed, %d skipped)%n",
          suite.title(), verdict, counts[0], counts[1], counts[2]);
    }
    out.printf("tck: %d passed, %d failed, %d skipped%n", passed, failed, skipped);
    out.flush();
    if (coreFailed) {
      return Verdict.CORE_FAILED;
    }
    return failed == 0 ? Verdict.CONFORMING : Verdict.FURTHER_RULES_FAILED;
  }

  private static Outcome outcome(TestIdentifier id, String status, String reason) {
    String rule = "";
    String level = "";
    String suite = "";
    if (id.getSource().orElse(null) instanceof MethodSource source) {
      Optional<Method> method = declared(source);
      Optional<Requirement> requirement = method.map(m -> m.getAnnotation(Requirement.class));
      rule = requirement.map(Requirement::rule).orElse("");
      level = requirement.map(r -> r.level().name()).orElse("");
      suite = method.map(m -> m.getDeclaringClass().getName()).orElse(source.getClassName());
    }
    return new Outcome(
        suite, status, level, rule, id.getDisplayName(), reason == null ? "" : reason);
  }

  /** The test's method, found in the class that declares it: the suite it belongs to. */
  private static Optional<Method> declared(MethodSource source) {
    try {
      Class<?> type = Class.forName(source.getClassName(), false, KitRunner.class.getClassLoader());
      for (Class<?> c = type; c != null; c = c.getSuperclass()) {
        for (Method method : c.getDeclaredMethods()) {
          if (method.getName().equals(source.getMethodName())) {
            return Optional.of(method);
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
