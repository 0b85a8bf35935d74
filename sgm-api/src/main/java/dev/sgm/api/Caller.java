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
 */
public record Caller(Optional<String> principal, String origin) {
  public Caller {
    Objects.requireNonNull(principal, "principal");
    Objects.requireNonNull(origin, "origin");
  }

  /** An unauthenticated caller through the given transport. */
  public static Caller anonymous(String origin) {
    return new Caller(Optional.empty(), origin);
  }

  /** An in-process caller that uses the engine directly. */
  public static Caller embedded() {
    return anonymous("embedded");
  }
}
