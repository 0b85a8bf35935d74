package dev.sgm.api;

import java.util.Arrays;
import java.util.Locale;

/** Which scopes a retrieve covers, relative to the query's scope. */
public enum ScopeMode {
  /** Only records whose scope equals the query's (the default). */
  EXACT,
  /** The query's scope and every narrower one. */
  DESCENDANTS,
  /** The query's scope and every broader one, e.g. project rules seen from a session. */
  ANCESTORS,
  /** Both ancestors and descendants. */
  LINEAGE;

  /**
   * True when a retrieve in this mode from {@code queried} covers a record of scope {@code record}:
   * the one statement of the scope modes, for every place that checks them.
   */
  public boolean covers(Scope queried, Scope record) {
    return switch (this) {
      case EXACT -> record.equals(queried);
      case DESCENDANTS -> queried.contains(record);
      case ANCESTORS -> record.contains(queried);
      case LINEAGE -> queried.contains(record) || record.contains(queried);
    };
  }

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The mode with this wire name, or {@code invalid_request} listing the modes. */
  public static ScopeMode fromWireName(String name) {
    for (ScopeMode mode : values()) {
      if (mode.wireName().equals(name)) {
        return mode;
      }
    }
    throw SgmException.invalidRequest(
        "scope_mode",
        "'"
            + name
            + "' is not one of "
            + Arrays.stream(values()).map(ScopeMode::wireName).toList());
  }
}
