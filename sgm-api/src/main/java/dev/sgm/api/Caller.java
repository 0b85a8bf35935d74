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
 */
public record Caller(Optional<String> principal, String origin, Grants grants) {
  public Caller {
    Objects.requireNonNull(principal, "principal");
    Objects.requireNonNull(origin, "origin");
    Objects.requireNonNull(grants, "grants");
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

  /** An in-process caller that uses the engine directly. */
  public static Caller embedded() {
    return anonymous("embedded");
  }
}
