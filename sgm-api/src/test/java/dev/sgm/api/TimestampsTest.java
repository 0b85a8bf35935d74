package dev.sgm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TimestampsTest {
  private static final DateTimeFormatter WRITTEN =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
          .withZone(java.time.ZoneOffset.UTC);

  /** What the general RFC 3339 parser makes of {@code text}: the reference for the fast path. */
  private static Instant general(String text) {
    try {
      return OffsetDateTime.parse(text, DateTimeFormatter.ISO_OFFSET_DATE_TIME).toInstant();
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  @Test
  void formatsAndReadsBackEveryInstantAsTheFormatterDoes() {
    Random random = new Random(7);
    long first = Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
    long last = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
    for (int i = 0; i < 200_000; i++) {
      Instant instant =
          Instant.ofEpochSecond(
              first + (long) (random.nextDouble() * (last - first)), random.nextInt(1_000_000_000));
      String text = Timestamps.format(instant);
      assertEquals(WRITTEN.format(instant.truncatedTo(ChronoUnit.MICROS)), text);
      assertEquals(instant.truncatedTo(ChronoUnit.MICROS), Timestamps.tryParse(text), text);
    }
    Instant farOff = Instant.parse("+12026-01-01T00:00:00Z");
    assertEquals(WRITTEN.format(farOff), Timestamps.format(farOff));
  }

  @Test
  void readsWhatTheGeneralParserReadsAndRefusesWhatItRefuses() {
    List<String> texts =
        List.of(
            "2026-10-10T18:21:47Z",
            "2026-10-10T18:21:47.1Z",
            "2026-10-10T18:21:47.123456789Z",
            "2026-10-10T18:21:47.1234567890Z",
            "2026-10-10T18:21:47.Z",
            "2026-10-10t18:21:47z",
            "2026-10-10T18:21:47+02:00",
            "2026-10-10T18:21Z",
            "2024-02-29T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-04-31T00:00:00Z",
            "2026-13-01T00:00:00Z",
            "2026-00-01T00:00:00Z",
            "2026-01-00T00:00:00Z",
            "2026-01-01T24:00:00Z",
            "2026-01-01T23:60:00Z",
            "2026-12-31T23:59:60Z",
            "0000-01-01T00:00:00Z",
            "+10000-01-01T00:00:00Z",
            "2026-1a-01T00:00:00Z",
            "2026-10-10 18:21:47Z",
            "2026-10-10T18:21:47,5Z",
            "2026-10-10T18:21:4xZ",
            "2026-10-10T18:21:47.12a4Z",
            "");
    for (String text : texts) {
      assertEquals(general(text), Timestamps.tryParse(text), text);
    }
    assertNull(Timestamps.tryParse(null));
  }
}
