package dev.sgm.api;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.YearMonth;
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

  private static final long FIRST_FOUR_DIGIT_SECOND =
      LocalDateTime.of(0, 1, 1, 0, 0).toEpochSecond(ZoneOffset.UTC);
  private static final long LAST_FOUR_DIGIT_SECOND =
      LocalDateTime.of(9999, 12, 31, 23, 59, 59).toEpochSecond(ZoneOffset.UTC);

  private Timestamps() {}

  /** Formats an instant, truncated to microseconds. */
  public static String format(Instant instant) {
    long seconds = instant.getEpochSecond();
    if (seconds < FIRST_FOUR_DIGIT_SECOND || seconds > LAST_FOUR_DIGIT_SECOND) {
      return WRITE.format(instant.truncatedTo(ChronoUnit.MICROS));
    }
    // Every store writes two of these: digits by hand cost a tenth of the formatter's time.
    LocalDateTime t = LocalDateTime.ofEpochSecond(seconds, 0, ZoneOffset.UTC);
    char[] out = "0000-00-00T00:00:00.000000Z".toCharArray();
    digits(out, 0, 4, t.getYear());
    digits(out, 5, 2, t.getMonthValue());
    digits(out, 8, 2, t.getDayOfMonth());
    digits(out, 11, 2, t.getHour());
    digits(out, 14, 2, t.getMinute());
    digits(out, 17, 2, t.getSecond());
    digits(out, 20, 6, instant.getNano() / 1000);
    return new String(out);
  }

  private static void digits(char[] out, int at, int width, int value) {
    for (int i = at + width - 1; i >= at; i--) {
      out[i] = (char) ('0' + value % 10);
      value /= 10;
    }
  }

  /** Parses an RFC 3339 date-time (an offset is required), or returns null when it is not one. */
  public static Instant tryParse(String text) {
    if (text == null) {
      return null;
    }
    Instant written = tryParseUtc(text);
    if (written != null) {
      return written;
    }
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * The form SGM writes ({@code 2026-10-10T18:21:47.123456Z}: UTC, four-digit year, seconds, one to
   * nine fraction digits or none) read by hand, or null for anything else, which the general parser
   * then decides on: this accepts nothing that it would refuse, and reads it the same.
   */
  private static Instant tryParseUtc(String text) {
    int length = text.length();
    if (length < 20
        || length > 30
        || text.charAt(4) != '-'
        || text.charAt(7) != '-'
        || text.charAt(10) != 'T'
        || text.charAt(13) != ':'
        || text.charAt(16) != ':'
        || text.charAt(length - 1) != 'Z') {
      return null;
    }
    int year = number(text, 0, 4);
    int month = number(text, 5, 2);
    int day = number(text, 8, 2);
    int hour = number(text, 11, 2);
    int minute = number(text, 14, 2);
    int second = number(text, 17, 2);
    int nanos = 0;
    if (length > 20) {
      int fraction = length - 21;
      if (text.charAt(19) != '.' || fraction < 1) {
        return null;
      }
      nanos = number(text, 20, fraction);
      if (nanos < 0) {
        return null;
      }
      for (int i = fraction; i < 9; i++) {
        nanos *= 10;
      }
    }
    if (year < 0
        || month < 1
        || month > 12
        || day < 1
        || day > YearMonth.of(year, month).lengthOfMonth()
        || hour < 0
        || hour > 23
        || minute < 0
        || minute > 59
        || second < 0
        || second > 59) {
      return null;
    }
    return Instant.ofEpochSecond(
        LocalDateTime.of(year, month, day, hour, minute, second).toEpochSecond(ZoneOffset.UTC),
        nanos);
  }

  /** The decimal number of {@code width} ASCII digits at {@code at}, or -1 when one is not. */
  private static int number(String text, int at, int width) {
    int value = 0;
    for (int i = at; i < at + width; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      value = value * 10 + (c - '0');
    }
    return value;
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
