package dev.sgm.tck;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;

/**
 * The world the authorization property checks principals against: scopes under two project roots,
 * the records seeded in them at every level, and how a grant or a query's scope reaches a record's.
 */
record AuthorizationWorld(
    List<ObjectNode> scopes, List<ObjectNode> roots, List<AuthorizationWorld.Seeded> records) {
  /** The sensitivity levels, lowest first: a clearance reads its own level and those below. */
  static final List<String> LEVELS = List.of("public", "internal", "confidential", "secret");

  private static final int RECORDS_PER_SCOPE = 5;

  /** A seeded record and its level (null: none named). */
  record Seeded(ObjectNode scope, String id, String type, String level, String marker, String x) {}

  /**
   * Stores the world's records through {@code owner} and, when the implementation keeps history, a
   * snapshot of each root named {@code snap}.
   */
  static AuthorizationWorld seed(
      SgmClient owner, String base, Random random, boolean history, boolean collaboration) {
    ObjectNode a = TckSupport.scope("project", base + "-a");
    ObjectNode b = TckSupport.scope("project", base + "-b");
    List<ObjectNode> scopes =
        List.of(
            a,
            TckSupport.scope("project", base + "-a", "session", "s1"),
            TckSupport.scope("project", base + "-a", "session", "s2"),
            b,
            TckSupport.scope("project", base + "-b", "session", "s1"));
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
        Seeded seeded =
            new Seeded(scope, "r" + n, type, level, marker(base, n), "v" + random.nextInt(2));
        store(owner, asRecord(seeded, n));
        records.add(seeded);
      }
    }
    List<ObjectNode> roots = List.of(a, b);
    if (history) {
      for (ObjectNode root : roots) {
        ObjectNode snapshot = Json.object();
        snapshot.set("scope", root);
        snapshot.put("name", "snap");
        snapshot.put("descendants", true);
        owner.call("snapshots.create", snapshot);
      }
    }
    return new AuthorizationWorld(scopes, roots, records);
  }

  /** The record stored for {@code seeded}, with data of the kind its type's schema asks for. */
  private static ObjectNode asRecord(Seeded seeded, int n) {
    ObjectNode record = TckSupport.record(seeded.id(), seeded.type(), seeded.scope());
    record.put("content", "about " + seeded.marker() + " and the common words");
    if (seeded.level() != null) {
      record.putObject("sensitivity").put("level", seeded.level());
    }
    record.putObject("metadata").put("x", seeded.x());
    ObjectNode data = Json.object();
    switch (seeded.type()) {
      case "note" -> data.put("x", seeded.x());
      case "task" -> data.put("state", "open");
      case "handoff" ->
          data.put("from_agent", "tck-agent").put("state", "open").put("summary", "work " + n);
      case "decision" -> data.put("status", "proposed").put("rationale", "because " + n);
      default -> {}
    }
    if (!data.isEmpty()) {
      record.set("data", data);
    }
    return record;
  }

  private static void store(SgmClient owner, ObjectNode record) {
    ObjectNode request = Json.object();
    request.set("record", record);
    owner.call("store", request);
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

  /** True when {@code grant}'s pairs are all in {@code scope}: the grant covers it. */
  static boolean covers(ObjectNode grant, ObjectNode scope) {
    for (var pair : grant.properties()) {
      if (!pair.getValue().equals(scope.get(pair.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** True when a query of {@code query} in scope mode {@code mode} reaches {@code scope}. */
  static boolean related(ObjectNode query, ObjectNode scope, String mode) {
    return switch (mode) {
      case "exact" -> query.equals(scope);
      case "descendants" -> covers(query, scope);
      case "ancestors" -> covers(scope, query);
      default -> covers(query, scope) || covers(scope, query);
    };
  }

  /** The scope as a grant names it, and as messages and keys show it: {@code k=v;k=v}, sorted. */
  static String canonical(ObjectNode scope) {
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
}
