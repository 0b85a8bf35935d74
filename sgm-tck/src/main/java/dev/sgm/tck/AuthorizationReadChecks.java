package dev.sgm.tck;

import static dev.sgm.tck.AnswerComparison.answer;
import static dev.sgm.tck.AuthorizationWorld.canonical;
import static dev.sgm.tck.AuthorizationWorld.covers;
import static dev.sgm.tck.AuthorizationWorld.related;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.tck.AuthorizationWorld.Seeded;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;

/**
 * The authorization property's checks of what a principal may see: reads, retrieves by scope, mode,
 * text and filter, the change feed, and past states (retrieves as of a snapshot, versions). None of
 * them changes the world, so every principal is checked against the same records.
 */
final class AuthorizationReadChecks {
  private final AnswerComparison compare;
  private final AuthorizationWorld world;

  AuthorizationReadChecks(AnswerComparison compare, AuthorizationWorld world) {
    this.compare = compare;
    this.world = world;
  }

  // ---- reads

  void reads(GrantedPrincipal p, Random random) {
    for (Seeded record : world.records()) {
      ObjectNode request = Json.object();
      request.set("scope", record.scope());
      request.put("id", record.id());
      Object answer = answer(p, "read", request);
      String what = "read " + canonical(record.scope()) + ":" + record.id();
      if (!p.readable(record.scope())) {
        compare.expectError(p, what, "forbidden", answer);
      } else if (answer instanceof JsonNode json) {
        compare.checkVisible(p, what, record, json.path("record"));
      } else {
        compare.mismatch(p, what, "the record", answer);
      }
    }
    for (ObjectNode scope : world.scopes()) {
      ObjectNode request = Json.object();
      request.set("scope", scope);
      request.put("id", "missing-" + random.nextInt(1000));
      compare.expectError(
          p,
          "read a missing record in " + canonical(scope),
          p.readable(scope) ? "not_found" : "forbidden",
          answer(p, "read", request));
    }
  }

  // ---- retrieves

  void retrieves(GrantedPrincipal p, Random random) {
    retrievesByScopeMode(p);
    for (ObjectNode root : world.roots()) {
      retrievesUnder(p, root, random);
    }
  }

  private void retrievesByScopeMode(GrantedPrincipal p) {
    for (ObjectNode scope : world.scopes()) {
      for (String mode : List.of("exact", "descendants", "ancestors", "lineage")) {
        ObjectNode query = Json.object();
        query.set("scope", scope);
        query.put("scope_mode", mode);
        query.put("limit", 100);
        compare.expectRecords(
            p,
            world,
            query,
            "retrieve " + canonical(scope) + " " + mode,
            r -> related(scope, r.scope(), mode),
            "retrieve");
      }
    }
  }

  /** Text and filter retrieves of {@code root}'s descendants. */
  private void retrievesUnder(GrantedPrincipal p, ObjectNode root, Random random) {
    for (Seeded target : targets(p, root, random)) {
      ObjectNode query = Json.object();
      query.set("scope", root);
      query.put("scope_mode", "descendants");
      query.put("text", target.marker());
      query.put("mode", "text");
      compare.expectRecords(
          p,
          world,
          query,
          "retrieve text " + target.marker() + " under " + canonical(root),
          r ->
              covers(root, r.scope()) && r.marker().equals(target.marker()) && p.cleared(r.level()),
          "retrieve");
    }
    String x = "v" + random.nextInt(2);
    ObjectNode filtered = Json.object();
    filtered.set("scope", root);
    filtered.put("scope_mode", "descendants");
    filtered.putObject("filter").put("metadata.x", x);
    filtered.put("limit", 100);
    // Metadata is not withheld: a record above the clearance matches it, and comes redacted.
    compare.expectRecords(
        p,
        world,
        filtered,
        "retrieve metadata.x=" + x + " under " + canonical(root),
        r -> covers(root, r.scope()) && r.x().equals(x),
        "retrieve");
    ObjectNode withheld = filtered.deepCopy();
    withheld.putObject("filter").put("data.x", x);
    // Data is withheld above the clearance: it must neither match nor show.
    compare.expectRecords(
        p,
        world,
        withheld,
        "retrieve data.x=" + x + " under " + canonical(root),
        r ->
            covers(root, r.scope())
                && r.type().equals("note")
                && r.x().equals(x)
                && p.cleared(r.level()),
        "retrieve");
  }

  /**
   * The records whose words a principal looks for under {@code root}: two at random, and those the
   * principal could see but not read whole (in a readable scope, above its clearance), whose words
   * must find nothing.
   */
  private List<Seeded> targets(GrantedPrincipal p, ObjectNode root, Random random) {
    List<Seeded> targets = new ArrayList<>();
    targets.add(world.records().get(random.nextInt(world.records().size())));
    targets.add(world.records().get(random.nextInt(world.records().size())));
    for (Seeded record : world.records()) {
      if (covers(root, record.scope())
          && p.readable(record.scope())
          && !p.cleared(record.level())) {
        targets.add(record);
      }
    }
    return targets;
  }

  // ---- the change feed

  /** A request for the changes under {@code scope} and its descendants after {@code since}. */
  static ObjectNode changesQuery(ObjectNode scope, String since) {
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("scope_mode", "descendants");
    request.put("limit", 1000);
    if (since != null) {
      request.put("since", since);
    }
    return request;
  }

  /**
   * The events since {@code cursors} (a cursor per project, taken before the world was seeded) are
   * those of the records the principal may read, and no others.
   */
  void feed(GrantedPrincipal p, Map<String, String> cursors) {
    for (ObjectNode root : world.roots()) {
      Object answer =
          answer(p, "changes", changesQuery(root, cursors.get(root.path("project").asText())));
      String what = "changes under " + canonical(root);
      if (!(answer instanceof JsonNode json)) {
        compare.mismatch(p, what, "events", answer);
        continue;
      }
      Set<String> expected = new TreeSet<>();
      for (Seeded record : world.records()) {
        if (covers(root, record.scope()) && p.readable(record.scope())) {
          expected.add(canonical(record.scope()) + ":" + record.id());
        }
      }
      Set<String> actual = new TreeSet<>();
      for (JsonNode event : json.path("events")) {
        String key = canonical((ObjectNode) event.path("scope")) + ":" + event.path("id").asText();
        if (covers(root, (ObjectNode) event.path("scope"))) {
          actual.add(key);
        }
        if (!p.readable((ObjectNode) event.path("scope"))) {
          compare.mismatch(p, what, "no event of an unreadable scope", key);
        }
      }
      if (!actual.equals(expected)) {
        compare.mismatch(p, what, expected, actual);
      }
    }
  }

  // ---- past states

  void pastStates(GrantedPrincipal p, Random random) {
    for (ObjectNode root : world.roots()) {
      for (Seeded target : targets(p, root, random)) {
        pastText(p, root, target);
      }
      String x = "v" + random.nextInt(2);
      ObjectNode filter = Json.object();
      filter.set("scope", root);
      filter.put("scope_mode", "descendants");
      filter.putObject("filter").put("data.x", x);
      filter.put("limit", 100);
      ObjectNode filtered = Json.object();
      filtered.putObject("snapshot").set("scope", root);
      ((ObjectNode) filtered.get("snapshot")).put("name", "snap");
      filtered.set("query", filter);
      if (p.readable(root)) {
        compare.expectRecords(
            p,
            world,
            filter,
            filtered,
            "snapshots.retrieve data.x=" + x + " under " + canonical(root),
            r ->
                covers(root, r.scope())
                    && r.type().equals("note")
                    && r.x().equals(x)
                    && p.cleared(r.level()),
            "snapshots.retrieve");
      }
    }
    versions(p);
  }

  private void pastText(GrantedPrincipal p, ObjectNode root, Seeded target) {
    ObjectNode query = Json.object();
    query.set("scope", root);
    query.put("scope_mode", "descendants");
    query.put("text", target.marker());
    query.put("mode", "text");
    ObjectNode request = Json.object();
    request.putObject("snapshot").set("scope", root);
    ((ObjectNode) request.get("snapshot")).put("name", "snap");
    request.set("query", query);
    String what = "snapshots.retrieve text " + target.marker() + " under " + canonical(root);
    if (!p.readable(root)) {
      compare.expectError(p, what, "forbidden", answer(p, "snapshots.retrieve", request));
    } else {
      ObjectNode exact = query.deepCopy();
      exact.put("scope_mode", "descendants");
      compare.expectRecords(
          p,
          world,
          exact,
          request,
          what,
          r ->
              covers(root, r.scope()) && r.marker().equals(target.marker()) && p.cleared(r.level()),
          "snapshots.retrieve");
    }
  }

  private void versions(GrantedPrincipal p) {
    for (ObjectNode scope : world.scopes()) {
      Seeded one =
          world.records().stream().filter(r -> r.scope().equals(scope)).findFirst().orElseThrow();
      for (String id : List.of(one.id(), "missing-version")) {
        ObjectNode request = Json.object();
        request.set("scope", scope);
        request.put("id", id);
        Object answer = answer(p, "history.versions", request);
        String what = "history.versions " + canonical(scope) + ":" + id;
        if (!p.readable(scope)) {
          compare.expectError(p, what, "forbidden", answer);
        } else if (id.startsWith("missing")) {
          compare.expectError(p, what, "not_found", answer);
        } else if (!(answer instanceof JsonNode)) {
          compare.mismatch(p, what, "versions", answer);
        }
      }
    }
  }
}
