package dev.sgm.api;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * What a principal may do: read or read and write the scopes of its grants (each covering its scope
 * and every narrower one), write as the agents it may speak for, and see content up to its
 * clearance. The engine checks every operation against the caller's grants, whatever the transport;
 * {@link #OWNER} is the local owner (auth off, stdio, the CLI on a data directory), who may do
 * everything.
 *
 * @param grants the scopes and what may be done in each
 * @param agents the agents the principal may name in {@code provenance.agent}; {@code *} for any
 * @param clearance the most sensitive level whose content the principal sees
 */
public record Grants(List<Grant> grants, Set<String> agents, Sensitivity clearance) {
  /** Any agent may be spoken for. */
  public static final String ANY_AGENT = "*";

  /** The local owner: every scope, any agent, every level. */
  public static final Grants OWNER = new Grants(null, Set.of(ANY_AGENT), Sensitivity.SECRET);

  public Grants {
    grants = grants == null ? null : List.copyOf(grants);
    agents = Set.copyOf(Objects.requireNonNull(agents, "agents"));
    Objects.requireNonNull(clearance, "clearance");
  }

  /** What a grant allows. */
  public enum Access {
    READ,
    READ_WRITE;

    public String wireName() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }

    /** The access with this wire name ({@code read}, {@code read_write}), or null. */
    public static Access fromWireName(String name) {
      for (Access access : values()) {
        if (access.wireName().equals(name)) {
          return access;
        }
      }
      return null;
    }
  }

  /** One grant: a scope (and every narrower one) and what may be done there. */
  public record Grant(Scope scope, Access access) {
    public Grant {
      Objects.requireNonNull(scope, "scope");
      Objects.requireNonNull(access, "access");
    }

    /**
     * A grant as written on a command line: {@code project=alpha;session=s1:read_write} (the scope
     * in canonical form, then the access after the last colon).
     */
    public static Grant parse(String text) {
      int colon = text.lastIndexOf(':');
      Access access = colon < 0 ? null : Access.fromWireName(text.substring(colon + 1));
      if (access == null) {
        throw SgmException.invalidRequest(
            "grant",
            "'" + text + "' must be SCOPE:read or SCOPE:read_write, e.g. project=alpha:read");
      }
      Scope scope;
      try {
        scope = Scope.parseCanonical(text.substring(0, colon));
      } catch (SgmException e) {
        throw SgmException.invalidRequest("grant", "'" + text + "': " + e.getMessage());
      }
      return new Grant(scope, access);
    }

    @Override
    public String toString() {
      return scope.canonical() + ":" + access.wireName();
    }
  }

  /** True for the local owner, whom nothing restricts. */
  public boolean isOwner() {
    return grants == null;
  }

  /** True when a record of {@code scope} may be read. */
  public boolean canRead(Scope scope) {
    return allows(scope, false);
  }

  /** True when a record of {@code scope} may be written. */
  public boolean canWrite(Scope scope) {
    return allows(scope, true);
  }

  // A loop rather than a stream: every operation of an authenticated caller asks this.
  private boolean allows(Scope scope, boolean write) {
    if (isOwner()) {
      return true;
    }
    for (Grant grant : grants) {
      if ((!write || grant.access() == Access.READ_WRITE) && grant.scope().contains(scope)) {
        return true;
      }
    }
    return false;
  }

  /** True when {@code provenance.agent} may name {@code agent}. */
  public boolean maySpeakFor(String agent) {
    return agents.contains(ANY_AGENT) || agents.contains(agent);
  }

  /** True when the content of a record of this level may be seen. */
  public boolean cleared(Sensitivity level) {
    return level.compareTo(clearance) <= 0;
  }

  /** The wire form of {@code whoami}: grants, agents and clearance (never a secret). */
  public ObjectNode toJson(String principal) {
    ObjectNode json = Json.object();
    json.put("principal", principal);
    json.put("owner", isOwner());
    ArrayNode list = json.putArray("grants");
    if (isOwner()) {
      list.addObject().put("scope", "*").put("access", Access.READ_WRITE.wireName());
    } else {
      for (Grant grant : grants) {
        ObjectNode one = list.addObject();
        one.set("scope", grant.scope().toJson());
        one.put("access", grant.access().wireName());
      }
    }
    ArrayNode agentList = json.putArray("agents");
    agents.stream().sorted().forEach(agentList::add);
    json.put("clearance", clearance.wireName());
    return json;
  }
}
