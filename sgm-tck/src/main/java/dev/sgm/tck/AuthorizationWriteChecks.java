package dev.sgm.tck;

import static dev.sgm.tck.AnswerComparison.abbreviate;
import static dev.sgm.tck.AnswerComparison.answer;
import static dev.sgm.tck.AuthorizationWorld.LEVELS;
import static dev.sgm.tck.AuthorizationWorld.canonical;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.tck.AuthorizationWorld.Seeded;
import java.util.List;
import java.util.Random;

/**
 * The authorization property's checks of what a principal may do: stores, overwrites, deletes,
 * collaboration moves in an agent's name, and references to content. Of the seeded records only
 * forbidden changes are tried, since an allowed one would change the world the other principals are
 * checked against; allowed stores go to records of their own.
 */
final class AuthorizationWriteChecks {
  private final AnswerComparison compare;
  private final AuthorizationWorld world;
  private final SgmClient owner;

  AuthorizationWriteChecks(AnswerComparison compare, AuthorizationWorld world, SgmClient owner) {
    this.compare = compare;
    this.world = world;
    this.owner = owner;
  }

  void writes(GrantedPrincipal p, Random random, boolean collaboration) {
    newRecords(p, random);
    for (Seeded record : world.records()) {
      if (p.writable(record.scope()) && p.cleared(record.level())) {
        continue; // allowed writes would change the world the other principals are checked against
      }
      forbiddenChanges(p, record, collaboration);
    }
    for (ObjectNode scope : world.scopes()) {
      if (!p.writable(scope)) {
        ObjectNode delete = Json.object();
        delete.set("scope", scope);
        delete.put("id", "missing-" + p.name());
        compare.expectError(
            p,
            "delete a missing record in " + canonical(scope),
            "forbidden",
            answer(p, "delete", delete));
      }
    }
    if (collaboration && !p.agents().contains("*")) {
      claimsAsAnotherAgent(p);
    }
  }

  /** Stores of new records at random scopes, levels and agents: allowed only when all three are. */
  private void newRecords(GrantedPrincipal p, Random random) {
    for (int k = 0; k < 6; k++) {
      ObjectNode scope = world.scopes().get(random.nextInt(world.scopes().size()));
      String level = LEVELS.get(random.nextInt(LEVELS.size()));
      String agent = List.of("agent-1", "agent-2", "agent-3").get(random.nextInt(3));
      ObjectNode record = TckSupport.record("new-" + p.name() + "-" + k, "note", scope);
      record.put("content", "written by " + p.name());
      record.putObject("sensitivity").put("level", level);
      ((ObjectNode) record.get("provenance")).put("agent", agent);
      ObjectNode request = Json.object();
      request.set("record", record);
      Object answer = answer(p, "store", request);
      String what = "store in " + canonical(scope) + " at " + level + " as " + agent;
      if (!p.writable(scope) || !p.speaksFor(agent) || !p.cleared(level)) {
        compare.expectError(p, what, "forbidden", answer);
      } else if (!(answer instanceof JsonNode)) {
        compare.mismatch(p, what, "stored", answer);
      }
    }
  }

  /**
   * An overwrite and a delete of a record the principal may not change (and, for a handoff, its
   * accept and complete), each forbidden.
   */
  private void forbiddenChanges(GrantedPrincipal p, Seeded record, boolean collaboration) {
    String target = canonical(record.scope()) + ":" + record.id();
    ObjectNode replacement = TckSupport.record(record.id(), record.type(), record.scope());
    replacement.put("content", "overwritten by " + p.name());
    ((ObjectNode) replacement.get("provenance")).put("agent", p.anAgent());
    ObjectNode store = Json.object();
    store.set("record", replacement);
    compare.expectError(p, "overwrite " + target, "forbidden", answer(p, "store", store));
    compare.expectError(p, "delete " + target, "forbidden", answer(p, "delete", target(record)));
    if (collaboration && record.type().equals("handoff")) {
      ObjectNode accept = target(record);
      accept.put("agent", p.anAgent());
      compare.expectError(
          p, "handoffs.accept " + target, "forbidden", answer(p, "handoffs.accept", accept));
      compare.expectError(
          p,
          "handoffs.complete " + target,
          "forbidden",
          answer(p, "handoffs.complete", target(record)));
    }
  }

  /** Claims of every readable task in the name of an agent the principal may not act as. */
  private void claimsAsAnotherAgent(GrantedPrincipal p) {
    for (Seeded task : world.records().stream().filter(r -> r.type().equals("task")).toList()) {
      if (!p.readable(task.scope())) {
        continue;
      }
      ObjectNode claim = target(task);
      claim.put("agent", "agent-3");
      compare.expectError(
          p,
          "tasks.claim as agent-3 " + canonical(task.scope()) + ":" + task.id(),
          "forbidden",
          answer(p, "tasks.claim", claim));
    }
  }

  private static ObjectNode target(Seeded record) {
    ObjectNode request = Json.object();
    request.set("scope", record.scope());
    request.put("id", record.id());
    return request;
  }

  // ---- references to content

  /**
   * A principal that may write somewhere may reference content it put, and resolve it, but not
   * content it did not put, whether the store holds it (the owner's) or not.
   */
  void references(GrantedPrincipal p) {
    ObjectNode writable = world.scopes().stream().filter(p::writable).findFirst().orElse(null);
    if (writable == null) {
      return;
    }
    String agent = p.anAgent();
    String theirs =
        owner
            .call("put_content", Json.object().put("content", "the owner's own words " + p.name()))
            .path("reference")
            .path("hash")
            .asText();
    String missing = "0".repeat(63) + "1";
    for (String hash : List.of(theirs, missing)) {
      ObjectNode record =
          TckSupport.record("ref-" + hash.substring(0, 8) + "-" + p.name(), "note", writable);
      ((ObjectNode) record.get("provenance")).put("agent", agent);
      record.putObject("reference").put("kind", "content-hash").put("hash", hash);
      ObjectNode request = Json.object();
      request.set("record", record);
      compare.expectError(
          p,
          "reference content it has not put (" + (hash.equals(missing) ? "not held" : "held") + ")",
          "forbidden",
          answer(p, "store", request));
    }
    Object put = answer(p, "put_content", Json.object().put("content", "my own words " + p.name()));
    if (!(put instanceof JsonNode mine)) {
      compare.mismatch(p, "put_content with a write grant", "a reference", put);
      return;
    }
    ObjectNode record = TckSupport.record("ref-own-" + p.name(), "note", writable);
    ((ObjectNode) record.get("provenance")).put("agent", agent);
    record.set("reference", mine.path("reference"));
    ObjectNode request = Json.object();
    request.set("record", record);
    Object stored = answer(p, "store", request);
    if (!(stored instanceof JsonNode)) {
      compare.mismatch(p, "reference content it put", "stored", stored);
      return;
    }
    ObjectNode read = Json.object();
    read.set("scope", writable);
    read.put("id", record.path("id").asText());
    read.put("resolve", true);
    Object resolved = answer(p, "read", read);
    if (!(resolved instanceof JsonNode json)
        || !json.path("content").asText().equals("my own words " + p.name())) {
      compare.mismatch(
          p, "resolve content it put", "my own words " + p.name(), abbreviate(resolved));
    }
  }
}
