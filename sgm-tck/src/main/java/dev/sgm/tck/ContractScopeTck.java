package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The contract's rules of scope and identity (§2): one id in two scopes is two records, canonical
 * scopes do not collide, and the scope modes.
 *
 * <p>A section of {@link ContractTck}, which is how to run it: the sections extend one another in
 * the contract's order, so only the kit extends this class.
 */
public abstract class ContractScopeTck extends ContractRecordTck {
  ContractScopeTck() {}

  // ---- §2 scopes

  @Test
  @DisplayName("§2 the same id in two scopes is two records")
  @Requirement(rule = "§2 identity")
  void scope_sameIdInTwoScopesIsTwoRecords() {
    String run = unique("run");
    ObjectNode a = scope("project", "a-" + run);
    ObjectNode b = scope("project", "b-" + run);
    ObjectNode first = record("shared-id", "fact", a);
    first.put("content", "in a");
    ObjectNode second = record("shared-id", "fact", b);
    second.put("content", "in b");
    store(first);
    store(second);
    assertEquals("in a", read(a, "shared-id").path("content").asText());
    assertEquals("in b", read(b, "shared-id").path("content").asText());
  }

  @Test
  @DisplayName("§2 reserved characters in scope values never make two scopes collide")
  @Requirement(rule = "§2 canonical scope")
  void scope_reservedCharactersDoNotCollide() {
    String run = unique("run");
    // Naively joined, both would read "project=x;team=y=z".
    ObjectNode one = scope("project", run + ";team=y", "team", "z");
    ObjectNode two = scope("project", run, "team", "y=z");
    ObjectNode three = scope("project", run + ":/%3B", "team", "z");
    int n = 0;
    for (ObjectNode s : List.of(one, two, three)) {
      ObjectNode r = record("same", "fact", s);
      r.put("content", "scope " + n++);
      store(r);
    }
    assertEquals("scope 0", read(one, "same").path("content").asText());
    assertEquals("scope 1", read(two, "same").path("content").asText());
    assertEquals("scope 2", read(three, "same").path("content").asText());
    assertEquals(1, retrieveIn(three, null).path("total").asLong());
  }

  private ObjectNode[] family(String project) {
    ObjectNode parent = scope("project", project);
    ObjectNode s1 = scope("project", project, "session", "s1");
    ObjectNode s2 = scope("project", project, "session", "s2");
    ObjectNode s1Agent = scope("project", project, "session", "s1", "agent", "a");
    ObjectNode other = scope("project", project + "-other", "session", "s1");
    int i = 0;
    for (ObjectNode s : new ObjectNode[] {parent, s1, s2, s1Agent, other}) {
      store(record("r" + i++, "fact", s));
    }
    return new ObjectNode[] {parent, s1, s2, s1Agent, other};
  }

  @Test
  @DisplayName("§2 descendants: that scope and every narrower one, no siblings")
  @Requirement(rule = "§2 scope modes")
  void scope_descendants() {
    ObjectNode[] f = family(unique("fam"));
    JsonNode result = retrieveIn(f[1], "{'scope_mode': 'descendants'}");
    assertEquals(Set.of("r1", "r3"), new HashSet<>(ids(result)));
    assertEquals(2, result.path("total").asLong());
    JsonNode all = retrieveIn(f[0], "{'scope_mode': 'descendants'}");
    assertEquals(Set.of("r0", "r1", "r2", "r3"), new HashSet<>(ids(all)));
    for (JsonNode r : all.path("records")) {
      assertEquals(
          f[Integer.parseInt(r.path("id").asText().substring(1))], r.path("scope"), "own scope");
    }
  }

  @Test
  @DisplayName("§2 ancestors: that scope and every broader one, no siblings")
  @Requirement(rule = "§2 scope modes")
  void scope_ancestors() {
    ObjectNode[] f = family(unique("fam"));
    assertEquals(
        Set.of("r0", "r1", "r3"),
        new HashSet<>(ids(retrieveIn(f[3], "{'scope_mode': 'ancestors'}"))));
    assertEquals(
        Set.of("r0", "r2"), new HashSet<>(ids(retrieveIn(f[2], "{'scope_mode': 'ancestors'}"))));
  }

  @Test
  @DisplayName("§2 lineage: ancestors and descendants together")
  @Requirement(rule = "§2 scope modes")
  void scope_lineage() {
    ObjectNode[] f = family(unique("fam"));
    assertEquals(
        Set.of("r0", "r1", "r3"),
        new HashSet<>(ids(retrieveIn(f[1], "{'scope_mode': 'lineage'}"))));
  }

  @Test
  @DisplayName("§2 exact is the default: neither broader nor narrower records")
  @Requirement(rule = "§2 scope modes")
  void scope_exactIsTheDefault() {
    ObjectNode[] f = family(unique("fam"));
    assertEquals(List.of("r1"), ids(retrieveIn(f[1], null)));
    assertEquals(List.of("r1"), ids(retrieveIn(f[1], "{'scope_mode': 'exact'}")));
  }
}
