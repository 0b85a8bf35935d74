package dev.sgm.core;

import java.util.List;

/**
 * What the program that hosts the engine adds to the capabilities discovery advertises, after the
 * plugins' (the {@code sgm} command line adds {@code cli}: it is the host, not a plugin).
 *
 * @param names the capability names, in order
 */
public record HostCapabilities(List<String> names) {
  /** A host that adds nothing: a library, a test. */
  public static final HostCapabilities NONE = new HostCapabilities(List.of());

  public HostCapabilities {
    names = List.copyOf(names);
  }
}
