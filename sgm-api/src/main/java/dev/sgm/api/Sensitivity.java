package dev.sgm.api;

import java.util.Arrays;
import java.util.Locale;

/**
 * How sensitive a record is ({@code sensitivity.level}), and so how cleared a principal must be to
 * see its content: {@code public} < {@code internal} < {@code confidential} < {@code secret}. A
 * record without a level is public.
 */
public enum Sensitivity {
  PUBLIC,
  INTERNAL,
  CONFIDENTIAL,
  SECRET;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The level with this wire name, or {@code invalid_request} naming {@code field}. */
  public static Sensitivity fromWireName(String name, String field) {
    for (Sensitivity level : values()) {
      if (level.wireName().equals(name)) {
        return level;
      }
    }
    throw SgmException.invalidRequest(
        field,
        "'"
            + name
            + "' is not one of "
            + Arrays.stream(values()).map(Sensitivity::wireName).toList());
  }

  /**
   * The level of a stored record: its {@code sensitivity.level}, public when absent. A level this
   * implementation does not know counts as secret, so that a typo never exposes content.
   */
  public static Sensitivity of(MemoryRecord record) {
    // Most records name no level: their stored text is then not parsed for it.
    if (!record.mayHave("sensitivity")) {
      return PUBLIC;
    }
    return ofJson(record.view().path("sensitivity").path("level"));
  }

  /** The level a {@code sensitivity.level} value names (see {@link #of(MemoryRecord)}). */
  public static Sensitivity ofJson(com.fasterxml.jackson.databind.JsonNode level) {
    if (level.isMissingNode() || level.isNull()) {
      return PUBLIC;
    }
    for (Sensitivity known : values()) {
      if (known.wireName().equals(level.asText())) {
        return known;
      }
    }
    return SECRET;
  }
}
