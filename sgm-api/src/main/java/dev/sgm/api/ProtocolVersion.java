package dev.sgm.api;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A semantic version of the SGM protocol. Versions {@code 0.x} are compatible only within the same
 * minor; from {@code 1.0} on, within the same major.
 */
public record ProtocolVersion(int major, int minor, int patch)
    implements Comparable<ProtocolVersion> {
  /** The protocol version this implementation speaks. */
  public static final ProtocolVersion CURRENT = new ProtocolVersion(0, 1, 0);

  /** The record schema version this implementation writes. */
  public static final String SCHEMA_VERSION = "0.1.0";

  private static final Pattern SEMVER =
      Pattern.compile(
          "(0|[1-9]\\d*)\\.(0|[1-9]\\d*)\\.(0|[1-9]\\d*)(?:-[0-9A-Za-z.-]+)?(?:\\+[0-9A-Za-z.-]+)?");

  /** Parses {@code MAJOR.MINOR.PATCH} (pre-release and build suffixes are accepted and ignored). */
  public static ProtocolVersion parse(String text) {
    Matcher m = SEMVER.matcher(text == null ? "" : text);
    if (!m.matches()) {
      throw SgmException.invalidRequest(
          "accept_versions", "'" + text + "' is not a semantic version such as 0.1.0");
    }
    return new ProtocolVersion(
        Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
  }

  /** True when a peer speaking {@code other} can talk to one speaking this version. */
  public boolean isCompatibleWith(ProtocolVersion other) {
    if (major == 0 || other.major == 0) {
      return major == other.major && minor == other.minor;
    }
    return major == other.major;
  }

  @Override
  public int compareTo(ProtocolVersion o) {
    int c = Integer.compare(major, o.major);
    if (c == 0) {
      c = Integer.compare(minor, o.minor);
    }
    return c != 0 ? c : Integer.compare(patch, o.patch);
  }

  @Override
  public String toString() {
    return major + "." + minor + "." + patch;
  }
}
