package dev.sgm.api;

import java.util.Objects;
import java.util.Optional;

/**
 * Who is calling an operation and through which transport. Every operation takes one, so that
 * authorization and provenance are decided in the core for every transport alike.
 *
 * @param principal the authenticated principal, empty when authentication is off
 * @param origin the transport the call came through ({@code grpc}, {@code http}, {@code mcp},
 *     {@code cli}, {@code embedded}); it becomes {@code provenance.origin} when a record does not
 *     name one
 * @param grants what the caller may do; {@link Grants#OWNER} when authentication is off
 * @param credential the id of the token the caller presented, empty when none: what a long-lived
 *     call (a watch) checks again, so that it ends once the token is revoked or expires
 */
public record Caller(
    Optional<String> principal, String origin, Grants grants, Optional<String> credential) {
  public Caller {
    Objects.requireNonNull(principal, "principal");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(grants, "grants");
    Objects.requireNonNull(credential, "credential");
  }

  /** A caller presenting no token of its own. */
  public Caller(Optional<String> principal, String origin, Grants grants) {
    this(principal, origin, grants, Optional.empty());
  }

  /** A caller with no principal, acting as the local owner. */
  public Caller(Optional<String> principal, String origin) {
    this(principal, origin, Grants.OWNER);
  }

  /** An unauthenticated caller through the given transport: the local owner. */
  public static Caller anonymous(String origin) {
    return new Caller(Optional.empty(), origin, Grants.OWNER);
  }

  /** An authenticated principal with its grants, through the given transport. */
  public static Caller authenticated(String principal, String origin, Grants grants) {
    return new Caller(Optional.of(principal), origin, grants);
  }

  /** An authenticated principal with its grants, by the token of id {@code credential}. */
  public static Caller authenticated(
      String principal, String origin, Grants grants, String credential) {
    return new Caller(Optional.of(principal), origin, grants, Optional.of(credential));
  }

  /**
   * {@code forbidden}, naming {@code field}, unless this caller may act as {@code agent}: write as
   * it ({@code provenance.agent}), or claim, renew or take work over in its name.
   */
  public void requireAgent(String agent, String field) {
    if (grants.isOwner() || grants.maySpeakFor(agent)) {
      return;
    }
    throw new SgmException(
        ErrorCode.FORBIDDEN,
        principal.map(p -> "principal '" + p + "'").orElse("this caller")
            + " may not act as agent '"
            + agent
            + "'; its agents: "
            + grants.agents().stream().sorted().toList(),
        java.util.List.of(new FieldError(field, "not an agent this token may speak for")));
  }

  /** An in-process caller that uses the engine directly. */
  public static Caller embedded() {
    return anonymous("embedded");
  }
}
