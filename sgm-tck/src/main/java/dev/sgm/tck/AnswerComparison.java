package dev.sgm.tck;

import static dev.sgm.tck.AuthorizationWorld.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.tck.AuthorizationWorld.Seeded;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Compares a principal's answers with what the authorization model expects, and gathers every
 * difference rather than stopping at the first, so that one run shows the whole pattern of a leak.
 */
final class AnswerComparison {
  private final List<String> mismatches = new ArrayList<>();

  List<String> mismatches() {
    return mismatches;
  }

  void mismatch(GrantedPrincipal p, String what, Object expected, Object actual) {
    mismatches.add(
        p.name()
            + " (grants "
            + p.describeGrants()
            + ", clearance "
            + p.clearance()
            + ", agents "
            + p.agents()
            + ") "
            + what
            + ": expected "
            + expected
            + ", got "
            + actual);
  }

  /** The call's answer, or the error code it failed with as {@code "error:<code>"}. */
  static Object answer(GrantedPrincipal p, String operation, JsonNode request) {
    try {
      return p.client().call(operation, request);
    } catch (SgmException e) {
      return "error:" + e.code().wireName();
    }
  }

  void expectError(GrantedPrincipal p, String what, String code, Object actual) {
    if (!("error:" + code).equals(actual)) {
      mismatch(p, what, "error:" + code, abbreviate(actual));
    }
  }

  static String abbreviate(Object answer) {
    String text = answer instanceof JsonNode json ? Json.write(json) : String.valueOf(answer);
    return text.length() > 300 ? text.substring(0, 300) + "..." : text;
  }

  /** A returned record is whole when within clearance, redacted (nothing withheld) above it. */
  void checkVisible(GrantedPrincipal p, String what, Seeded record, JsonNode seen) {
    boolean redacted = seen.path("redacted").asBoolean(false);
    if (p.cleared(record.level())) {
      if (redacted || !seen.path("content").asText().contains(record.marker())) {
        mismatch(p, what, "the whole record", abbreviate(seen));
      }
    } else if (!redacted || seen.has("content") || seen.has("data") || seen.has("reference")) {
      mismatch(p, what, "the record redacted (level " + record.level() + ")", abbreviate(seen));
    }
  }

  /**
   * Runs a retrieve-like call and compares its records and total with the seeded records that the
   * principal may read and {@code matches} keeps; an exact query of an unreadable scope is
   * forbidden.
   */
  void expectRecords(
      GrantedPrincipal p,
      AuthorizationWorld world,
      ObjectNode query,
      String what,
      Predicate<Seeded> matches,
      String operation) {
    expectRecords(p, world, query, query, what, matches, operation);
  }

  /** As above, with {@code request} sent in place of {@code query}, which wraps it. */
  void expectRecords(
      GrantedPrincipal p,
      AuthorizationWorld world,
      ObjectNode query,
      JsonNode request,
      String what,
      Predicate<Seeded> matches,
      String operation) {
    ObjectNode scope = (ObjectNode) query.get("scope");
    String mode = query.path("scope_mode").asText("exact");
    Object answer = answer(p, operation, request);
    if (mode.equals("exact") && !p.readable(scope)) {
      expectError(p, what, "forbidden", answer);
      return;
    }
    if (!(answer instanceof JsonNode json)) {
      mismatch(p, what, "records", answer);
      return;
    }
    Map<String, Seeded> expected = new LinkedHashMap<>();
    for (Seeded record : world.records()) {
      if (p.readable(record.scope()) && matches.test(record)) {
        expected.put(canonical(record.scope()) + ":" + record.id(), record);
      }
    }
    Set<String> actual = new TreeSet<>();
    for (JsonNode record : json.path("records")) {
      String key = canonical((ObjectNode) record.path("scope")) + ":" + record.path("id").asText();
      actual.add(key);
      Seeded seeded = expected.get(key);
      if (seeded != null) {
        checkVisible(p, what + " (" + key + ")", seeded, record);
      }
    }
    if (!actual.equals(new TreeSet<>(expected.keySet()))) {
      mismatch(p, what, new TreeSet<>(expected.keySet()), actual);
    }
    if (json.path("total").asInt(-1) != expected.size()) {
      mismatch(p, what + " total", expected.size(), json.path("total"));
    }
  }
}
