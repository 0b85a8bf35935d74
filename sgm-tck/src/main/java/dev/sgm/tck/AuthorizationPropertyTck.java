package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * CONTRACT §8 as a property: random principals (grants of random scopes with random access, a
 * random clearance, random agents), created through {@code tokens.create}, call every kind of
 * operation on a world of records at random levels, and each answer is compared with a model of
 * what that principal may see and do: reads, retrieves by scope, mode, text and filter, the change
 * feed, retrieves as of a snapshot, versions, stores, deletes, collaboration moves in an agent's
 * name, and references to content. Errors are part of the answer: a target the principal may not
 * see answers alike whether it exists or not. The seed is printed with every mismatch, and {@code
 * -Dsgm.tck.seed} replays it.
 *
 * <p>{@link #client()} is the owner (or a bootstrap token); {@link #clientWithToken} presents a
 * token, over the same transport.
 */
public abstract class AuthorizationPropertyTck extends TckSupport {
  private static final List<String> LEVELS =
      List.of("public", "internal", "confidential", "secret");
  private static final int PRINCIPALS = 6;
  private static final int RECORDS_PER_SCOPE = 5;

  /** A client of the same implementation presenting {@code token} as its bearer token. */
  protected abstract SgmClient clientWithToken(String token);

  /** One scope of the world, as JSON, and what it is called in messages. */
  private record World(List<ObjectNode> scopes, List<ObjectNode> roots, List<Seeded> records) {}

  /** A seeded record and its level (null: none named). */
  private record Seeded(
      ObjectNode scope, String id, String type, String level, String marker, String x) {}

  /** A principal as the model sees it. */
  private record Principal(
      String name,
      SgmClient client,
      Map<ObjectNode, Boolean> grants, // scope -> writable
      String clearance,
      Set<String> agents) {

    boolean readable(ObjectNode scope) {
      return grants.keySet().stream().anyMatch(g -> covers(g, scope));
    }

    boolean writable(ObjectNode scope) {
      return grants.entrySet().stream().anyMatch(g -> g.getValue() && covers(g.getKey(), scope));
    }

    boolean cleared(String level) {
      return LEVELS.indexOf(level == null ? "public" : level) <= LEVELS.indexOf(clearance);
    }

    boolean speaksFor(String agent) {
      return agents.contains("*") || agents.contains(agent);
    }
  }

  /** True when {@code grant}'s pairs are all in {@code scope}: the grant covers it. */
  private static boolean covers(ObjectNode grant, ObjectNode scope) {
    for (var pair : grant.properties()) {
      if (!pair.getValue().equals(scope.get(pair.getKey()))) {
        return false;
      }
    }
    return true;
  }

  private static String canonical(ObjectNode scope) {
    StringBuilder text = new StringBuilder();
    TreeSet<String> keys = new TreeSet<>();
    scope.fieldNames().forEachRemaining(keys::add);
    keys.forEach(
        k ->
            text.append(text.isEmpty() ? "" : ";")
                .append(k)
                .append('=')
                .append(scope.get(k).asText()));
    return text.toString();
  }

  private long seed;
  private final List<String> mismatches = new ArrayList<>();

  @Test
  void p01_everyAnswerMatchesWhatThePrincipalMaySeeAndDo() {
    seed = Long.getLong("sgm.tck.seed", new Random().nextLong());
    Random random = new Random(seed);
    boolean history = advertises("history");
    boolean collaboration = advertises("collaboration");
    String base = unique("authz");
    Map<String, String> cursors = new LinkedHashMap<>();
    for (String root : List.of(base + "-a", base + "-b")) {
      cursors.put(
          root, call("changes", changesQuery(scope("project", root), null)).path("next").asText());
    }
    World world = seed(base, random, history, collaboration);
    List<Principal> principals = new ArrayList<>();
    for (int p = 0; p < PRINCIPALS; p++) {
      principals.add(principal(random, world, p));
    }
    for (Principal principal : principals) {
      reads(principal, world, random);
      retrieves(principal, world, random);
      feed(principal, world, cursors);
      if (history) {
        pastStates(principal, world, random);
      }
    }
    for (Principal principal : principals) {
      writes(principal, world, random, collaboration);
      references(principal, world);
    }
    assertTrue(
        mismatches.isEmpty(),
        () ->
            mismatches.size()
                + " answers differ from the model (replay with -Dsgm.tck.seed="
                + seed
                + "):\n"
                + String.join("\n", mismatches.subList(0, Math.min(40, mismatches.size()))));
  }

  private boolean advertises(String capability) {
    for (JsonNode c : discovery().path("capabilities")) {
      if (c.asText().equals(capability)) {
        return true;
      }
    }
    return false;
  }

  // ---- the world

  private World seed(String base, Random random, boolean history, boolean collaboration) {
    ObjectNode a = scope("project", base + "-a");
    ObjectNode b = scope("project", base + "-b");
    List<ObjectNode> scopes =
        List.of(
            a,
            scope("project", base + "-a", "session", "s1"),
            scope("project", base + "-a", "session", "s2"),
            b,
            scope("project", base + "-b", "session", "s1"));
    List<Seeded> records = new ArrayList<>();
    int n = 0;
    for (ObjectNode scope : scopes) {
      int levelOffset = random.nextInt(LEVELS.size() + 1);
      for (int i = 0; i < RECORDS_PER_SCOPE; i++, n++) {
        String type =
            !collaboration ? "note" : List.of("note", "task", "handoff", "decision", "note").get(i);
        // Every level in every scope (in a random order), so that each principal meets records
        // above and within its clearance wherever it may read.
        int turn = Math.floorMod(i + levelOffset, LEVELS.size() + 1);
        String level = turn == LEVELS.size() ? null : LEVELS.get(turn);
        String marker = marker(base, n);
        String x = "v" + random.nextInt(2);
        ObjectNode record = record("r" + n, type, scope);
        record.put("content", "about " + marker + " and the common words");
        if (level != null) {
          record.putObject("sensitivity").put("level", level);
        }
        record.putObject("metadata").put("x", x);
        ObjectNode data = Json.object();
        switch (type) {
          case "note" -> data.put("x", x);
          case "task" -> data.put("state", "open");
          case "handoff" ->
              data.put("from_agent", "tck-agent").put("state", "open").put("summary", "work " + n);
          case "decision" -> data.put("status", "proposed").put("rationale", "because " + n);
          default -> {}
        }
        if (!data.isEmpty()) {
          record.set("data", data);
        }
        store(record);
        records.add(new Seeded(scope, "r" + n, type, level, marker, x));
      }
    }
    List<ObjectNode> roots = List.of(a, b);
    if (history) {
      for (ObjectNode root : roots) {
        ObjectNode snapshot = Json.object();
        snapshot.set("scope", root);
        snapshot.put("name", "snap");
        snapshot.put("descendants", true);
        call("snapshots.create", snapshot);
      }
    }
    return new World(scopes, roots, records);
  }

  /**
   * A word of letters only, one per record and run, that the text analysis keeps whole: what a text
   * query for it can find is that record alone.
   */
  private static String marker(String base, int n) {
    String letters = "bcdfghjklmnpqrstvwxz";
    StringBuilder word = new StringBuilder("zyq");
    for (char c : base.substring(base.length() - 8).toCharArray()) {
      word.append(letters.charAt(c % letters.length()));
    }
    word.append(letters.charAt(n / letters.length() % letters.length()));
    word.append(letters.charAt(n % letters.length()));
    return word.toString();
  }

  private Principal principal(Random random, World world, int p) {
    Map<ObjectNode, Boolean> grants = new LinkedHashMap<>();
    String clearance;
    if (p < 2) {
      // The first two always meet what a lower clearance withholds under a whole project: one
      // reads a root, one writes it; the others are wholly random.
      grants.put(world.roots().get(p), p == 1);
      clearance = LEVELS.get(p);
    } else {
      int count = 1 + random.nextInt(2);
      for (int g = 0; g < count; g++) {
        grants.put(world.scopes().get(random.nextInt(world.scopes().size())), random.nextBoolean());
      }
      clearance = LEVELS.get(random.nextInt(LEVELS.size()));
    }
    List<Set<String>> agentChoices =
        List.of(Set.of("agent-1"), Set.of("*"), Set.of("agent-1", "agent-2"));
    Set<String> agents = agentChoices.get(random.nextInt(agentChoices.size()));
    String name = "principal-" + p + "-" + Long.toHexString(seed & 0xffff);
    ObjectNode request = Json.object();
    request.put("principal", name);
    grants.forEach(
        (scope, write) ->
            request
                .withArray("grants")
                .add(canonical(scope) + ":" + (write ? "read_write" : "read")));
    agents.forEach(request.withArray("agents")::add);
    request.put("clearance", clearance);
    request.put("expires_in", "60m");
    String token = call("tokens.create", request).path("token").asText();
    return new Principal(name, clientWithToken(token), grants, clearance, agents);
  }

  // ---- comparing answers

  private void mismatch(Principal p, String what, Object expected, Object actual) {
    mismatches.add(
        p.name()
            + " (grants "
            + describe(p)
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

  private static String describe(Principal p) {
    List<String> grants = new ArrayList<>();
    p.grants().forEach((s, w) -> grants.add(canonical(s) + (w ? ":rw" : ":r")));
    return grants.toString();
  }

  /** The call's answer, or the error code it failed with as {@code "error:<code>"}. */
  private static Object answer(Principal p, String operation, JsonNode request) {
    try {
      return p.client().call(operation, request);
    } catch (SgmException e) {
      return "error:" + e.code().wireName();
    }
  }

  private void expectError(Principal p, String what, String code, Object actual) {
    if (!("error:" + code).equals(actual)) {
      mismatch(p, what, "error:" + code, abbreviate(actual));
    }
  }

  private static String abbreviate(Object answer) {
    String text = answer instanceof JsonNode json ? Json.write(json) : String.valueOf(answer);
    return text.length() > 300 ? text.substring(0, 300) + "..." : text;
  }

  // ---- reads

  private void reads(Principal p, World world, Random random) {
    for (Seeded record : world.records()) {
      ObjectNode request = Json.object();
      request.set("scope", record.scope());
      request.put("id", record.id());
      Object answer = answer(p, "read", request);
      String what = "read " + canonical(record.scope()) + ":" + record.id();
      if (!p.readable(record.scope())) {
        expectError(p, what, "forbidden", answer);
      } else if (answer instanceof JsonNode json) {
        checkVisible(p, what, record, json.path("record"));
      } else {
        mismatch(p, what, "the record", answer);
      }
    }
    for (ObjectNode scope : world.scopes()) {
      ObjectNode request = Json.object();
      request.set("scope", scope);
      request.put("id", "missing-" + random.nextInt(1000));
      expectError(
          p,
          "read a missing record in " + canonical(scope),
          p.readable(scope) ? "not_found" : "forbidden",
          answer(p, "read", request));
    }
  }

  /** A returned record is whole when within clearance, redacted (nothing withheld) above it. */
  private void checkVisible(Principal p, String what, Seeded record, JsonNode seen) {
    boolean redacted = seen.path("redacted").asBoolean(false);
    if (p.cleared(record.level())) {
      if (redacted || !seen.path("content").asText().contains(record.marker())) {
        mismatch(p, what, "the whole record", abbreviate(seen));
      }
    } else if (!redacted || seen.has("content") || seen.has("data") || seen.has("reference")) {
      mismatch(p, what, "the record redacted (level " + record.level() + ")", abbreviate(seen));
    }
  }

  // ---- retrieves

  private static boolean related(ObjectNode query, ObjectNode scope, String mode) {
    return switch (mode) {
      case "exact" -> query.equals(scope);
      case "descendants" -> covers(query, scope);
      case "ancestors" -> covers(scope, query);
      default -> covers(query, scope) || covers(scope, query);
    };
  }

  private void retrieves(Principal p, World world, Random random) {
    for (ObjectNode scope : world.scopes()) {
      for (String mode : List.of("exact", "descendants", "ancestors", "lineage")) {
        ObjectNode query = Json.object();
        query.set("scope", scope);
        query.put("scope_mode", mode);
        query.put("limit", 100);
        expectRecords(
            p,
            world,
            query,
            "retrieve " + canonical(scope) + " " + mode,
            r -> related(scope, r.scope(), mode),
            "retrieve");
      }
    }
    for (ObjectNode root : world.roots()) {
      for (Seeded target : targets(p, world, root, random)) {
        ObjectNode query = Json.object();
        query.set("scope", root);
        query.put("scope_mode", "descendants");
        query.put("text", target.marker());
        query.put("mode", "text");
        expectRecords(
            p,
            world,
            query,
            "retrieve text " + target.marker() + " under " + canonical(root),
            r ->
                covers(root, r.scope())
                    && r.marker().equals(target.marker())
                    && p.cleared(r.level()),
            "retrieve");
      }
      String x = "v" + random.nextInt(2);
      ObjectNode filtered = Json.object();
      filtered.set("scope", root);
      filtered.put("scope_mode", "descendants");
      filtered.putObject("filter").put("metadata.x", x);
      filtered.put("limit", 100);
      // Metadata is not withheld: a record above the clearance matches it, and comes redacted.
      expectRecords(
          p,
          world,
          filtered,
          "retrieve metadata.x=" + x + " under " + canonical(root),
          r -> covers(root, r.scope()) && r.x().equals(x),
          "retrieve");
      ObjectNode withheld = filtered.deepCopy();
      withheld.putObject("filter").put("data.x", x);
      // Data is withheld above the clearance: it must neither match nor show.
      expectRecords(
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
  }

  /**
   * Runs a retrieve-like call and compares its records and total with the seeded records that the
   * principal may read and {@code matches} keeps; an exact query of an unreadable scope is
   * forbidden.
   */
  private void expectRecords(
      Principal p,
      World world,
      ObjectNode query,
      String what,
      java.util.function.Predicate<Seeded> matches,
      String operation) {
    expectRecords(p, world, query, query, what, matches, operation);
  }

  private void expectRecords(
      Principal p,
      World world,
      ObjectNode query,
      JsonNode request,
      String what,
      java.util.function.Predicate<Seeded> matches,
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

  // ---- the change feed

  private static ObjectNode changesQuery(ObjectNode scope, String since) {
    ObjectNode request = Json.object();
    request.set("scope", scope);
    request.put("scope_mode", "descendants");
    request.put("limit", 1000);
    if (since != null) {
      request.put("since", since);
    }
    return request;
  }

  private void feed(Principal p, World world, Map<String, String> cursors) {
    for (ObjectNode root : world.roots()) {
      Object answer =
          answer(p, "changes", changesQuery(root, cursors.get(root.path("project").asText())));
      String what = "changes under " + canonical(root);
      if (!(answer instanceof JsonNode json)) {
        mismatch(p, what, "events", answer);
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
          mismatch(p, what, "no event of an unreadable scope", key);
        }
      }
      if (!actual.equals(expected)) {
        mismatch(p, what, expected, actual);
      }
    }
  }

  // ---- past states

  private void pastStates(Principal p, World world, Random random) {
    for (ObjectNode root : world.roots()) {
      for (Seeded target : targets(p, world, root, random)) {
        pastText(p, world, root, target);
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
        expectRecords(
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
    versions(p, world);
  }

  /**
   * The records whose words a principal looks for under {@code root}: two at random, and those the
   * principal could see but not read whole (in a readable scope, above its clearance), whose words
   * must find nothing.
   */
  private static List<Seeded> targets(Principal p, World world, ObjectNode root, Random random) {
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

  private void pastText(Principal p, World world, ObjectNode root, Seeded target) {
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
      expectError(p, what, "forbidden", answer(p, "snapshots.retrieve", request));
    } else {
      ObjectNode exact = query.deepCopy();
      exact.put("scope_mode", "descendants");
      expectRecords(
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

  private void versions(Principal p, World world) {
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
          expectError(p, what, "forbidden", answer);
        } else if (id.startsWith("missing")) {
          expectError(p, what, "not_found", answer);
        } else if (!(answer instanceof JsonNode)) {
          mismatch(p, what, "versions", answer);
        }
      }
    }
  }

  // ---- writes

  private void writes(Principal p, World world, Random random, boolean collaboration) {
    for (int k = 0; k < 6; k++) {
      ObjectNode scope = world.scopes().get(random.nextInt(world.scopes().size()));
      String level = LEVELS.get(random.nextInt(LEVELS.size()));
      String agent = List.of("agent-1", "agent-2", "agent-3").get(random.nextInt(3));
      ObjectNode record = record("new-" + p.name() + "-" + k, "note", scope);
      record.put("content", "written by " + p.name());
      record.putObject("sensitivity").put("level", level);
      ((ObjectNode) record.get("provenance")).put("agent", agent);
      ObjectNode request = Json.object();
      request.set("record", record);
      Object answer = answer(p, "store", request);
      String what = "store in " + canonical(scope) + " at " + level + " as " + agent;
      if (!p.writable(scope) || !p.speaksFor(agent) || !p.cleared(level)) {
        expectError(p, what, "forbidden", answer);
      } else if (!(answer instanceof JsonNode)) {
        mismatch(p, what, "stored", answer);
      }
    }
    for (Seeded record : world.records()) {
      boolean forbidden = !p.writable(record.scope()) || !p.cleared(record.level());
      if (!forbidden) {
        continue; // allowed writes would change the world the other principals are checked against
      }
      ObjectNode replacement = record(record.id(), record.type(), record.scope());
      replacement.put("content", "overwritten by " + p.name());
      ((ObjectNode) replacement.get("provenance"))
          .put("agent", p.agents().contains("*") ? "agent-1" : p.agents().iterator().next());
      ObjectNode store = Json.object();
      store.set("record", replacement);
      expectError(
          p,
          "overwrite " + canonical(record.scope()) + ":" + record.id(),
          "forbidden",
          answer(p, "store", store));
      ObjectNode delete = Json.object();
      delete.set("scope", record.scope());
      delete.put("id", record.id());
      expectError(
          p,
          "delete " + canonical(record.scope()) + ":" + record.id(),
          "forbidden",
          answer(p, "delete", delete));
      if (collaboration && record.type().equals("handoff")) {
        ObjectNode accept = Json.object();
        accept.set("scope", record.scope());
        accept.put("id", record.id());
        accept.put("agent", p.agents().contains("*") ? "agent-1" : p.agents().iterator().next());
        expectError(
            p,
            "handoffs.accept " + canonical(record.scope()) + ":" + record.id(),
            "forbidden",
            answer(p, "handoffs.accept", accept));
        ObjectNode complete = Json.object();
        complete.set("scope", record.scope());
        complete.put("id", record.id());
        expectError(
            p,
            "handoffs.complete " + canonical(record.scope()) + ":" + record.id(),
            "forbidden",
            answer(p, "handoffs.complete", complete));
      }
    }
    for (ObjectNode scope : world.scopes()) {
      if (!p.writable(scope)) {
        ObjectNode delete = Json.object();
        delete.set("scope", scope);
        delete.put("id", "missing-" + p.name());
        expectError(
            p,
            "delete a missing record in " + canonical(scope),
            "forbidden",
            answer(p, "delete", delete));
      }
    }
    if (collaboration && !p.agents().contains("*")) {
      for (Seeded task : world.records().stream().filter(r -> r.type().equals("task")).toList()) {
        if (!p.readable(task.scope())) {
          continue;
        }
        ObjectNode claim = Json.object();
        claim.set("scope", task.scope());
        claim.put("id", task.id());
        claim.put("agent", "agent-3");
        expectError(
            p,
            "tasks.claim as agent-3 " + canonical(task.scope()) + ":" + task.id(),
            "forbidden",
            answer(p, "tasks.claim", claim));
      }
    }
  }

  // ---- references to content

  private void references(Principal p, World world) {
    ObjectNode writable = world.scopes().stream().filter(p::writable).findFirst().orElse(null);
    if (writable == null) {
      return;
    }
    String agent = p.agents().contains("*") ? "agent-1" : p.agents().iterator().next();
    String theirs =
        call("put_content", Json.object().put("content", "the owner's own words " + p.name()))
            .path("reference")
            .path("hash")
            .asText();
    String missing = "0".repeat(63) + "1";
    for (String hash : List.of(theirs, missing)) {
      ObjectNode record = record("ref-" + hash.substring(0, 8) + "-" + p.name(), "note", writable);
      ((ObjectNode) record.get("provenance")).put("agent", agent);
      record.putObject("reference").put("kind", "content-hash").put("hash", hash);
      ObjectNode request = Json.object();
      request.set("record", record);
      expectError(
          p,
          "reference content it has not put (" + (hash.equals(missing) ? "not held" : "held") + ")",
          "forbidden",
          answer(p, "store", request));
    }
    Object put = answer(p, "put_content", Json.object().put("content", "my own words " + p.name()));
    if (!(put instanceof JsonNode mine)) {
      mismatch(p, "put_content with a write grant", "a reference", put);
      return;
    }
    ObjectNode record = record("ref-own-" + p.name(), "note", writable);
    ((ObjectNode) record.get("provenance")).put("agent", agent);
    record.set("reference", mine.path("reference"));
    ObjectNode request = Json.object();
    request.set("record", record);
    Object stored = answer(p, "store", request);
    if (!(stored instanceof JsonNode)) {
      mismatch(p, "reference content it put", "stored", stored);
      return;
    }
    ObjectNode read = Json.object();
    read.set("scope", writable);
    read.put("id", record.path("id").asText());
    read.put("resolve", true);
    Object resolved = answer(p, "read", read);
    if (!(resolved instanceof JsonNode json)
        || !json.path("content").asText().equals("my own words " + p.name())) {
      mismatch(p, "resolve content it put", "my own words " + p.name(), abbreviate(resolved));
    }
  }
}
