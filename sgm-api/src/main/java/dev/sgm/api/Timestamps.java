package dev.sgm.api;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;

/**
 * RFC 3339 timestamps as SGM writes and reads them: UTC, microsecond precision, {@code Z} suffix.
 */
public final class Timestamps {
  private static final DateTimeFormatter WRITE =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private Timestamps() {}

  /** Formats an instant, truncated to microseconds. */
  public static String format(Instant instant) {
    return WRITE.format(instant.truncatedTo(ChronoUnit.MICROS));
  }

  /** Parses an RFC 3339 date-time (an offset is required), or returns null when it is not one. */
  public static Instant tryParse(String text) {
    if (text == null) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /** Parses an RFC 3339 date-time or fails with {@code invalid_request} naming {@code field}. */
  public static Instant parse(String text, String field) {
    Instant instant = tryParse(text);
    if (instant == null) {
      throw SgmException.invalidRequest(
          field, "'" + text + "' is not an RFC 3339 date-time such as 2026-10-10T18:21:47Z");
    }
    return instant;
  }

  /** Microseconds since the epoch, the unit the storage orders by. */
  public static long toMicros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }
}
