package dev.sgm.tck;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.spi.ConformanceKit;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.Set;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * Runs the kit's suites with the JUnit Platform launcher against any {@link SgmClient}: a line per
 * test with the rule, its strength and the outcome (skips with their reason), then a verdict per
 * suite (the core cases first, then each profile, then this project's further rules), a summary,
 * the verdict, and JUnit XML on request. {@code sgm tck URL} runs it when this module is present.
 *
 * <p>The profiles' suites are whatever {@link ProfileSuite} providers are present, this module's
 * own and those plugins bring; each runs when the target advertises its capability.
 */
public final class KitRunner implements ConformanceKit {
  /** The server under test, for the suites below; one run at a time. */
  private static volatile SgmClient target;

  /** The profiles' suites that this run skips, each with the reason. */
  private static volatile Map<Class<?>, String> skips = Map.of();

  /**
   * The server under test while the kit runs, null otherwise: what each suite the kit runs gives as
   * its client, a {@link ProfileSuite}'s too.
   */
  public static SgmClient target() {
    return target;
  }

  /**
   * Why this run skips the suite {@code type}, or null when it runs it (or no run is under way): a
   * profile the target does not advertise.
   */
  static String skipReason(Class<?> type) {
    return skips.get(type);
  }

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

  /** The protocol's core cases, first in the verdict. */
  private static final Suite CORE =
      new Suite(CoreConformanceTck.class, "core (C1-C12, docs/spec)", Kind.CORE);

  /**
   * This project's further rules, after the profiles in the verdict: the change feed and relevance
   * (each skipped unless advertised) and a suite per section of the contract. Each is named by the
   * class that declares its tests, so the contract's sections, which {@link Contract} runs
   * together, are told apart.
   */
  private static final List<Suite> FURTHER =
      List.of(
          further(ChangesTck.class, "change feed (docs/spec/changes.md"),
          further(RelevanceTck.class, "relevance (docs/spec/retrieval.md"),
          further(ContractRecordTck.class, "the record (docs/spec/memory-model.md, "),
          further(ContractScopeTck.class, "scope and identity (docs/spec/scopes.md, "),
          further(ContractOperationsTck.class, "operations (docs/spec/memory-model.md, "),
          further(ContractDiscoveryTck.class, "discovery (docs/spec/discovery.md, "),
          further(ContractErrorsTck.class, "errors (docs/spec/errors.md, "));

  /** The classes the launcher runs after the profiles' suites, against the target. */
  private static final List<Class<?>> FURTHER_RUN =
      List.of(Changes.class, Relevance.class, Contract.class);

  /**
   * A suite of this project's further rules; {@code opening} ends in a space or a clause of its
   * parentheses.
   */
  private static Suite further(Class<?> type, String opening) {
    String separator = opening.endsWith(" ") ? "" : ", ";
    return new Suite(type, opening + separator + "this project's further rules)", Kind.FURTHER);
  }

  @Override
  public synchronized Verdict run(SgmClient client, Path junit, PrintWriter out) {
    List<ProfileSuite> profiles = profileSuites();
    List<Outcome> outcomes;
    target = client;
    skips = skips(profiles, advertised(client));
    try {
      outcomes = execute(classes(profiles), junit, out);
    } finally {
      target = null;
      skips = Map.of();
    }
    long[] totals = printTests(outcomes, out);
    Failures failures = printSuites(suites(profiles), outcomes, out);
    out.printf("tck: %d passed, %d failed, %d skipped%n", totals[0], totals[1], totals[2]);
    Verdict verdict = verdict(failures, out);
    out.flush();
    return verdict;
  }

  /**
   * Every profile's suite present: this module's in the order it lists them, then the plugins' by
   * capability.
   */
  private static List<ProfileSuite> profileSuites() {
    List<ProfileSuite> own = new ArrayList<>();
    List<ProfileSuite> plugins = new ArrayList<>();
    for (ProfileSuite suite :
        ServiceLoader.load(ProfileSuite.class, KitRunner.class.getClassLoader())) {
      boolean ours = suite.getClass().getPackageName().equals(KitRunner.class.getPackageName());
      (ours ? own : plugins).add(suite);
    }
    plugins.sort(Comparator.comparing(ProfileSuite::capability));
    own.addAll(plugins);
    return own;
  }

  /**
   * The capabilities the target's discovery advertises; null when discovery fails, and then every
   * profile's suite runs, to meet that failure itself.
   */
  private static Set<String> advertised(SgmClient client) {
    try {
      Set<String> capabilities = new HashSet<>();
      client
          .call("discover", Json.object())
          .path("capabilities")
          .forEach(c -> capabilities.add(c.asText()));
      return capabilities;
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Every suite in the order of the verdict: the core cases, the profiles, the further rules. */
  private static List<Suite> suites(List<ProfileSuite> profiles) {
    List<Suite> suites = new ArrayList<>();
    suites.add(CORE);
    for (ProfileSuite profile : profiles) {
      suites.add(new Suite(profile.suite(), profile.title(), Kind.PROFILE));
    }
    suites.addAll(FURTHER);
    return suites;
  }

  /**
   * The suites of the profiles that {@code advertised} lacks, each with the reason; none when
   * discovery failed, so that each suite meets that failure itself.
   */
  private static Map<Class<?>, String> skips(List<ProfileSuite> profiles, Set<String> advertised) {
    Map<Class<?>, String> skips = new HashMap<>();
    for (ProfileSuite profile : profiles) {
      if (advertised != null && !advertised.contains(profile.capability())) {
        skips.put(
            profile.suite(),
            "the implementation does not advertise '" + profile.capability() + "'");
      }
    }
    return skips;
  }

  /** The classes the launcher runs, in order: the core cases, the profiles, the further rules. */
  private static List<Class<?>> classes(List<ProfileSuite> profiles) {
    List<Class<?>> classes = new ArrayList<>();
    classes.add(Core.class);
    profiles.forEach(p -> classes.add(p.suite()));
    classes.addAll(FURTHER_RUN);
    return classes;
  }

  /** Runs {@code classes} against the target, and gathers an outcome per test. */
  private static List<Outcome> execute(List<Class<?>> classes, Path junit, PrintWriter out) {
    Map<String, Class<?>> byName = new HashMap<>();
    classes.forEach(type -> byName.put(type.getName(), type));
    Recorder recorder = new Recorder(byName);
    List<TestExecutionListener> listeners = new ArrayList<>();
    listeners.add(recorder);
    if (junit != null) {
      listeners.add(new LegacyXmlReportGeneratingListener(junit, out));
    }
    LauncherDiscoveryRequest request =
        LauncherDiscoveryRequestBuilder.request()
            .selectors(classes.stream().map(type -> selectClass(type)).toList())
            .build();
    LauncherFactory.create().execute(request, listeners.toArray(TestExecutionListener[]::new));
    return recorder.outcomes;
  }

  /** Prints a line per test; returns how many passed, failed and were skipped. */
  private static long[] printTests(List<Outcome> outcomes, PrintWriter out) {
    long[] totals = new long[3];
    for (Outcome o : outcomes) {
      out.printf(
          "%-4s %-6s %-26s %s%s%n",
          o.status(),
          o.level(),
          o.rule(),
          o.name(),
          o.reason().isEmpty() || o.status().equals("PASS") ? "" : " -- " + o.reason());
      switch (o.status()) {
        case "PASS" -> totals[0]++;
        case "FAIL" -> totals[1]++;
        default -> totals[2]++;
      }
    }
    return totals;
  }

  /** What failed, gathered by what a failure means. */
  private static final class Failures {
    private final Set<String> coreCases = new LinkedHashSet<>();
    private final Set<String> profiles = new LinkedHashSet<>();
    private long further;

    void add(Suite suite, Outcome o) {
      switch (suite.kind()) {
        case CORE -> coreCases.add(o.rule());
        case PROFILE -> profiles.add(suite.title());
        case FURTHER -> further++;
      }
    }
  }

  /**
   * Prints a verdict per suite, each from the outcomes of the tests it owns; returns what failed.
   */
  private static Failures printSuites(List<Suite> suites, List<Outcome> outcomes, PrintWriter out) {
    List<Suite> owners = outcomes.stream().map(o -> owner(suites, o.declaring())).toList();
    Failures failures = new Failures();
    for (Suite suite : suites) {
      List<Outcome> owned = new ArrayList<>();
      for (int i = 0; i < outcomes.size(); i++) {
        if (owners.get(i) == suite) {
          owned.add(outcomes.get(i));
        }
      }
      printSuite(suite, owned, failures, out);
    }
    return failures;
  }

  /** Prints the verdict of {@code suite} from the outcomes of its tests, and notes its failures. */
  private static void printSuite(
      Suite suite, List<Outcome> outcomes, Failures failures, PrintWriter out) {
    long[] counts = new long[3];
    Set<String> skipReasons = new LinkedHashSet<>();
    for (Outcome o : outcomes) {
      switch (o.status()) {
        case "PASS" -> counts[0]++;
        case "FAIL" -> {
          counts[1]++;
          failures.add(suite, o);
        }
        default -> {
          counts[2]++;
          skipReasons.add(o.reason());
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

  /** Prints the verdict of the run: the core cases decide it, then the advertised profiles. */
  private static Verdict verdict(Failures failures, PrintWriter out) {
    if (!failures.coreCases.isEmpty()) {
      out.printf(
          "verdict: NOT CONFORMING: the core %s %s failed%n",
          failures.coreCases.size() == 1 ? "case" : "cases", String.join(", ", failures.coreCases));
      return Verdict.CORE_FAILED;
    }
    if (!failures.profiles.isEmpty()) {
      out.printf(
          "verdict: NOT CONFORMING: the core cases passed, but the advertised %s failed%n",
          String.join(", ", failures.profiles));
      return Verdict.PROFILE_FAILED;
    }
    if (failures.further > 0) {
      out.printf(
          "verdict: conforming: the core cases and every advertised profile passed;"
              + " %d of this project's further rules failed%n",
          failures.further);
      return Verdict.FURTHER_RULES_FAILED;
    }
    out.println("verdict: conforming: every rule that ran passed");
    return Verdict.CONFORMING;
  }

  /**
   * The suite a test declared in {@code declaring} belongs to: the one whose class is it or,
   * nearest first, extends it. So each section of the contract, which extend one another, keeps its
   * own tests, the relevance suite gathers those of the areas it extends, and a profile's suite
   * those of the class its runnable class extends.
   */
  private static Suite owner(List<Suite> suites, Class<?> declaring) {
    Suite owner = null;
    int nearest = Integer.MAX_VALUE;
    for (Suite suite : suites) {
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

  /**
   * Gathers an outcome per test as the launcher reports it: passed, failed, or skipped with the
   * reason; a skipped class (a profile the target does not advertise) counts as each of its tests
   * skipped.
   */
  private static final class Recorder implements TestExecutionListener {
    private final List<Outcome> outcomes = new ArrayList<>();
    private final Map<String, Class<?>> classes;
    private TestPlan plan;

    Recorder(Map<String, Class<?>> classes) {
      this.classes = classes;
    }

    @Override
    public void testPlanExecutionStarted(TestPlan plan) {
      this.plan = plan;
    }

    @Override
    public void executionSkipped(TestIdentifier id, String reason) {
      if (id.isTest()) {
        outcomes.add(outcome(id, "SKIP", reason));
        return;
      }
      for (TestIdentifier test : plan.getDescendants(id)) {
        if (test.isTest()) {
          outcomes.add(outcome(test, "SKIP", reason));
        }
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
              // JUnit puts "Assumption failed: " before a skip's reason; the reason reads alone.
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

    private Outcome outcome(TestIdentifier id, String status, String reason) {
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
     * The test's method, found in the class that declares it: the suite it belongs to. The class
     * run is looked up among those the kit gave the launcher first, since a plugin's may not be
     * visible to this module's class loader.
     */
    private Optional<Method> declared(MethodSource source) {
      try {
        Class<?> type = classes.get(source.getClassName());
        if (type == null) {
          type = Class.forName(source.getClassName(), false, KitRunner.class.getClassLoader());
        }
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
  }

  private static String firstLine(String text) {
    return text == null ? "" : text.lines().findFirst().orElse("");
  }
}
