package dev.sgm.tck;

import static dev.sgm.tck.AuthorizationWorld.LEVELS;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;

/**
 * A principal of the authorization property as the model sees it: its grants (scope to whether it
 * may write), its clearance and the agents it may act as, with the client that presents its token.
 */
record GrantedPrincipal(
    String name,
    SgmClient client,
    Map<ObjectNode, Boolean> grants,
    String clearance,
    Set<String> agents) {

  /**
   * Makes principal number {@code p} up at random, and has {@code owner} create its token. The
   * first two always meet what a lower clearance withholds under a whole project: one reads a root,
   * one writes it; the others are wholly random.
   */
  static GrantedPrincipal issue(
      SgmClient owner,
      Function<String, SgmClient> clientWithToken,
      Random random,
      AuthorizationWorld world,
      int p,
      long seed) {
    Map<ObjectNode, Boolean> grants = new LinkedHashMap<>();
    String clearance;
    if (p < 2) {
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
                .add(AuthorizationWorld.canonical(scope) + ":" + (write ? "read_write" : "read")));
    agents.forEach(request.withArray("agents")::add);
    request.put("clearance", clearance);
    request.put("expires_in", "60m");
    String token = owner.call("tokens.create", request).path("token").asText();
    return new GrantedPrincipal(name, clientWithToken.apply(token), grants, clearance, agents);
  }

  boolean readable(ObjectNode scope) {
    return grants.keySet().stream().anyMatch(g -> AuthorizationWorld.covers(g, scope));
  }

  boolean writable(ObjectNode scope) {
    return grants.entrySet().stream()
        .anyMatch(g -> g.getValue() && AuthorizationWorld.covers(g.getKey(), scope));
  }

  boolean cleared(String level) {
    return LEVELS.indexOf(level == null ? "public" : level) <= LEVELS.indexOf(clearance);
  }

  boolean speaksFor(String agent) {
    return agents.contains("*") || agents.contains(agent);
  }

  /** An agent this principal may act as, for moves whose refusal must not be for the agent. */
  String anAgent() {
    return agents.contains("*") ? "agent-1" : agents.iterator().next();
  }

  /** The grants as mismatch messages show them: {@code [k=v:rw, k=v:r]}. */
  String describeGrants() {
    List<String> described = new ArrayList<>();
    grants.forEach((s, w) -> described.add(AuthorizationWorld.canonical(s) + (w ? ":rw" : ":r")));
    return described.toString();
  }
}
