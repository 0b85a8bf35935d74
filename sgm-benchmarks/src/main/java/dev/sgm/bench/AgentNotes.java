package dev.sgm.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Notes as a coding agent writes them, two or three sentences about the work, drawn from a seeded
 * generator so that every run stores the same texts: realistic lengths and vocabulary for the
 * analysis and the embedding model, unlike numbered words.
 */
final class AgentNotes {
  private static final List<String> SUBJECTS =
      List.of(
          "the connection pool",
          "HikariCP",
          "the login flow",
          "the build cache",
          "the user_id migration",
          "the payment service",
          "the search index",
          "the CI pipeline",
          "the retry logic",
          "the rate limiter",
          "the session store",
          "the nightly export job",
          "the config loader",
          "the gRPC client",
          "the orders schema",
          "the cache layer",
          "the token refresh",
          "the websocket gateway",
          "the billing report",
          "the audit log");
  private static final List<String> TECHNOLOGIES =
      List.of("PostgreSQL", "Redis", "Kafka", "H2", "Maven", "Gradle", "Docker", "Kubernetes");
  private static final List<String> CAUSES =
      List.of(
          "a race between two writers", "a missing index on the orders table",
          "an expired certificate", "a timezone assumption in the scheduler",
          "a stale cache entry after failover", "an unbounded retry loop",
          "a connection leak in the error path", "clock skew between the nodes");
  private static final List<String> OBSERVATIONS =
      List.of(
          "the dashboards look normal again", "memory stays flat over an hour",
          "two tests still fail on Windows", "it needs a second review before merging",
          "the on-call engineer confirmed the fix", "throughput dropped by ten percent");

  private final SplittableRandom random;

  AgentNotes(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** A note record in the project {@code bench}, written by the agent {@code bench}. */
  static ObjectNode record(String id, String content) {
    ObjectNode r = Json.object();
    r.put("id", id);
    r.put("type", "note");
    r.putObject("scope").put("project", "bench");
    r.put("content", content);
    r.putObject("provenance").put("agent", "bench");
    return r;
  }

  /** The next note. */
  String next() {
    StringBuilder note = new StringBuilder();
    int sentences = 2 + random.nextInt(2);
    for (int i = 0; i < sentences; i++) {
      note.append(i == 0 ? "" : " ").append(sentence());
    }
    return note.toString();
  }

  private String sentence() {
    return switch (random.nextInt(6)) {
      case 0 -> "Fixed a flaky test in " + pick(SUBJECTS) + ": the cause was " + pick(CAUSES) + ".";
      case 1 -> "Decided to keep " + pick(SUBJECTS) + " on " + pick(TECHNOLOGIES) + ".";
      case 2 -> "Checked " + pick(SUBJECTS) + " under load; " + pick(OBSERVATIONS) + ".";
      case 3 -> "Moved " + pick(SUBJECTS) + " behind a feature flag for version " + version() + ".";
      case 4 -> "Reviewed the pull request for " + pick(SUBJECTS) + "; " + pick(OBSERVATIONS) + ".";
      default ->
          "Benchmarked "
              + pick(SUBJECTS)
              + ": p99 went from "
              + (10 + random.nextInt(90))
              + " ms to "
              + (1 + random.nextInt(9))
              + " ms.";
    };
  }

  /** A version number such as {@code v2.13}. */
  String version() {
    return "v" + (1 + random.nextInt(4)) + "." + random.nextInt(20);
  }

  private String pick(List<String> list) {
    return list.get(random.nextInt(list.size()));
  }
}
