package dev.sgm.tck;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.SgmClient;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
  private static final int PRINCIPALS = 6;

  /** A client of the same implementation presenting {@code token} as its bearer token. */
  protected abstract SgmClient clientWithToken(String token);

  @Test
  void p01_everyAnswerMatchesWhatThePrincipalMaySeeAndDo() {
    long seed = Long.getLong("sgm.tck.seed", new Random().nextLong());
    Random random = new Random(seed);
    boolean history = advertises("history");
    boolean collaboration = advertises("collaboration");
    String base = unique("authz");
    Map<String, String> cursors = new LinkedHashMap<>();
    for (String root : List.of(base + "-a", base + "-b")) {
      cursors.put(
          root,
          call("changes", AuthorizationReadChecks.changesQuery(scope("project", root), null))
              .path("next")
              .asText());
    }
    SgmClient owner = this::call;
    AuthorizationWorld world = AuthorizationWorld.seed(owner, base, random, history, collaboration);
    List<GrantedPrincipal> principals = new ArrayList<>();
    for (int p = 0; p < PRINCIPALS; p++) {
      principals.add(GrantedPrincipal.issue(owner, this::clientWithToken, random, world, p, seed));
    }
    AnswerComparison compare = new AnswerComparison();
    AuthorizationReadChecks reads = new AuthorizationReadChecks(compare, world);
    for (GrantedPrincipal principal : principals) {
      reads.reads(principal, random);
      reads.retrieves(principal, random);
      reads.feed(principal, cursors);
      if (history) {
        reads.pastStates(principal, random);
      }
    }
    AuthorizationWriteChecks writes = new AuthorizationWriteChecks(compare, world, owner);
    for (GrantedPrincipal principal : principals) {
      writes.writes(principal, random, collaboration);
      writes.references(principal);
    }
    List<String> mismatches = compare.mismatches();
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
}
