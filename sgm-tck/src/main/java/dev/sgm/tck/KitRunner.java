package dev.sgm.tck;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.sgm.api.SgmClient;
import dev.sgm.api.spi.ConformanceKit;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
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
 * suite (the seeds' core cases first, then each profile, then this project's further rules), a
 * summary, the verdict, and JUnit XML on request. {@code sgm tck URL} runs it when this module is
 * present.
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

  /** The relevance suite against the target (skipped unless discovery advertises retrieval). */
  public static final class Relevance extends RelevanceTck {
    @Override
    protected SgmClient client() {
      return target;
    }
  }

  /** A test's outcome; {@code declaring} is the class that declares it, null when unknown. */
  private record Outcome(
      Class<?> declaring, String status, String level, String rule, String name, String reason) {}

  /**
   * What a suite's failure means. The seeds make the core cases mandatory and verify each profile
   * an implementation advertises; the rest of the kit checks this project's contract, which the
   * seeds do not bind other implementations to.
   */
  private enum Kind {
    /** The seeds' C1–C12: a failure means the target is not a conforming SGM implementation. */
    CORE,
    /** A profile of the seeds, run when advertised: a failure means it breaks what it claims. */
    PROFILE,
    /** This project's further rules: reported, but they do not decide the verdict. */
    FURTHER
  }

  /** A suite of the kit: its class, how the verdict names it, and what its failure means. */
  private record Suite(Class<?> type, String title, Kind kind) {}

  /**
   * Every suite, in the order of the verdict: the seeds' core cases first, then each profile (a
   * suite skips itself when the target does not advertise its profile), then this project's further
   * rules: the change feed and relevance (each skipped unless advertised) and a suite per section
   * of the contract. Each is named by the class that declares its tests, so the contract's
   * sections, which {@link Contract} runs together, are told apart.
   */
  private static final List<Suite> SUITES =
      List.of(
          new Suite(CoreConformanceTck.class, "core (the seeds' C1-C12)", Kind.CORE),
          new Suite(CollaborationTck.class, "collaboration profile", Kind.PROFILE),
          new Suite(CodeTck.class, "code profile", Kind.PROFILE),
          new Suite(HistoryTck.class, "history profile", Kind.PROFILE),
          further(ChangesTck.class, "change feed (contract §3.1"),
          further(RelevanceTck.class, "relevance (contract §3"),
          further(ContractRecordTck.class, "contract §1 the record ("),
          further(ContractScopeTck.class, "contract §2 scope and identity ("),
          further(ContractOperationsTck.class, "contract §3 operations ("),
          further(ContractDiscoveryTck.class, "contract §4 discovery ("),
          further(ContractErrorsTck.class, "contract §5 errors ("));

  /** The classes the launcher runs, against the target. */
  private static final List<Class<?>> RUN =
      List.of(
          Core.class,
          Collaboration.class,
          Code.class,
          History.class,
          Changes.class,
          Relevance.class,
          Contract.class);

  /** A suite of this project's further rules; {@code opening} ends in "(" or a clause of it. */
  private static Suite further(Class<?> type, String opening) {
    String separator = opening.endsWith("(") ? "" : ", ";
    return new Suite(type, opening + separator + "this project's further rules)", Kind.FURTHER);
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
            String reason =
                result
                    .getThrowable()
                    // JUnit puts "Assumption failed: " before a skip's reason; the reason reads
                    // alone.
                    .map(t -> firstLine(t.getMessage()).replaceFirst("^Assumption failed: ", ""))
                    .orElse("");
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
    List<String> coreFailures = new ArrayList<>();
    List<String> profileFailures = new ArrayList<>();
    long furtherFailures = 0;
    for (Suite suite : SUITES) {
      long[] counts = new long[3];
      Set<String> skipReasons = new LinkedHashSet<>();
      for (Outcome o : outcomes) {
        if (suite.equals(owner(o.declaring()))) {
          switch (o.status()) {
            case "PASS" -> counts[0]++;
            case "FAIL" -> {
              counts[1]++;
              switch (suite.kind()) {
                case CORE -> coreFailures.add(o.rule());
                case PROFILE -> profileFailures.add(suite.title());
                case FURTHER -> furtherFailures++;
              }
            }
            default -> {
              counts[2]++;
              skipReasons.add(o.reason());
            }
          }
        }
      }
      String verdict;
      if (counts[1] > 0) {
        verdict = "NOT CONFORMING";
      } else if (counts[0] > 0) {
        verdict = "conforming";
      } else {
        // Every test skipped: say why, when the suite gave one reason (its capability is absent).
        verdict =
            skipReasons.size() == 1 && !skipReasons.iterator().next().isBlank()
                ? "not run: " + skipReasons.iterator().next()
                : "not run (not advertised)";
      }
      out.printf(
          "suite %s: %s (%d passed, %d failed, %d skipped)%n",
          suite.title(), verdict, counts[0], counts[1], counts[2]);
    }
    out.printf("tck: %d passed, %d failed, %d skipped%n", passed, failed, skipped);
    Verdict verdict;
    if (!coreFailures.isEmpty()) {
      verdict = Verdict.CORE_FAILED;
      Set<String> cases = new LinkedHashSet<>(coreFailures);
      out.printf(
          "verdict: NOT CONFORMING: the seeds' core %s %s failed%n",
          cases.size() == 1 ? "case" : "cases", String.join(", ", cases));
    } else if (!profileFailures.isEmpty()) {
      verdict = Verdict.PROFILE_FAILED;
      out.printf(
          "verdict: NOT CONFORMING: the seeds' core cases passed, but the advertised %s failed%n",
          String.join(", ", new LinkedHashSet<>(profileFailures)));
    } else if (furtherFailures > 0) {
      verdict = Verdict.FURTHER_RULES_FAILED;
      out.printf(
          "verdict: conforming: the seeds' core cases and every advertised profile passed;"
              + " %d of this project's further rules failed%n",
          furtherFailures);
    } else {
      verdict = Verdict.CONFORMING;
      out.println("verdict: conforming: every rule that ran passed");
    }
    out.flush();
    return verdict;
  }

  private static Outcome outcome(TestIdentifier id, String status, String reason) {
    String rule = "";
    String level = "";
    Class<?> declaring = null;
    if (id.getSource().orElse(null) instanceof MethodSource source) {
      Optional<Method> method = declared(source);
      Optional<Requirement> requirement = method.map(m -> m.getAnnotation(Requirement.class));
      rule = requirement.map(Requirement::rule).orElse("");
      level = requirement.map(r -> r.level().name()).orElse("");
      declaring = method.<Class<?>>map(Method::getDeclaringClass).orElse(null);
    }
    return new Outcome(
        declaring, status, level, rule, id.getDisplayName(), reason == null ? "" : reason);
  }

  /**
   * The suite a test declared in {@code declaring} belongs to: the one whose class is it or,
   * nearest first, extends it. So each section of the contract, which extend one another, keeps its
   * own tests, and the relevance suite gathers those of the areas it extends.
   */
  private static Suite owner(Class<?> declaring) {
    Suite owner = null;
    int nearest = Integer.MAX_VALUE;
    for (Suite suite : SUITES) {
      int steps = 0;
      for (Class<?> c = suite.type();
          c != null && steps < nearest;
          c = c.getSuperclass(), steps++) {
        if (c == declaring) {
          owner = suite;
          nearest = steps;
        }
      }
    }
    return owner;
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
