package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Caller;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.ChangesResult;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoreRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The change feed where the wire-level suite cannot reach: restarts, retention, configuration. */
class ChangeFeedTest {
  private static final Caller CALLER = Caller.embedded();
  private static final Scope SCOPE = Scope.of("project", "feed");

  private static StoreRequest note(String id) {
    return StoreRequest.of(
        Json.parseObject(
            "{\"id\":\""
                + id
                + "\",\"type\":\"note\",\"scope\":{\"project\":\"feed\"},\"provenance\":{\"agent\":\"t\"}}",
            "record"));
  }

  private static List<String> ids(ChangesResult result) {
    return result.events().stream().map(ChangeEvent::id).toList();
  }

  private static SgmRuntime onDisk(Path dir, String... more) {
    Map<String, String> options =
        new java.util.HashMap<>(Map.of(ConfigLoader.DATA_DIR, dir.toString()));
    for (int i = 0; i < more.length; i += 2) {
      options.put(more[i], more[i + 1]);
    }
    return SgmRuntime.open(ConfigLoader.load(options, Map.of()));
  }

  /**
   * No commit wakes the change log's follower while nothing watches, so a watch may open while the
   * follower is behind: it must still see each of its events once, and not be told that it fell
   * behind because the follower's backlog went through its small buffer.
   */
  @Test
  void aWatchOpenedAfterUnwatchedCommitsGetsItsEventsOnceWithoutFallingBehind(@TempDir Path dir)
      throws Exception {
    try (SgmRuntime sgm = onDisk(dir, ConfigLoader.WATCH_BUFFER, "4")) {
      String start = sgm.service().changes(CALLER, ChangesRequest.of(SCOPE)).next();
      List<String> expected = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        sgm.service().store(CALLER, note("unwatched-" + i));
        expected.add("unwatched-" + i);
      }
      try (ChangeStream fromNow = sgm.service().watch(CALLER, ChangesRequest.of(SCOPE));
          ChangeStream fromStart =
              sgm.service().watch(CALLER, ChangesRequest.of(SCOPE).since(start))) {
        sgm.service().store(CALLER, note("watched"));
        expected.add("watched");
        assertEquals(List.of("watched"), pollUntil(fromNow, "watched"));
        assertEquals(expected, pollUntil(fromStart, "watched"));
      }
    }
  }

  /** The ids a watch hands out up to and including {@code last}; none may say it fell behind. */
  private static List<String> pollUntil(ChangeStream stream, String last) throws Exception {
    List<String> seen = new ArrayList<>();
    while (!seen.contains(last)) {
      ChangeStream.Batch batch = stream.poll(Duration.ofSeconds(5));
      assertFalse(batch.fellBehind(), "told it fell behind after " + seen);
      assertFalse(batch.events().isEmpty(), "nothing within 5 s after " + seen);
      batch.events().forEach(event -> seen.add(event.id()));
    }
    return seen;
  }

  @Test
  void aCursorResumesAcrossARestartAndIsRefusedByAnotherStore(
      @TempDir Path dir, @TempDir Path other) {
    String cursor;
    try (SgmRuntime sgm = onDisk(dir)) {
      String start = sgm.service().changes(CALLER, ChangesRequest.of(SCOPE)).next();
      sgm.service().store(CALLER, note("before-restart"));
      ChangesResult seen = sgm.service().changes(CALLER, ChangesRequest.of(SCOPE).since(start));
      assertEquals(List.of("before-restart"), ids(seen));
      cursor = seen.next();
    }
    try (SgmRuntime sgm = onDisk(dir)) {
      sgm.service().store(CALLER, note("after-restart"));
      assertEquals(
          List.of("after-restart"),
          ids(sgm.service().changes(CALLER, ChangesRequest.of(SCOPE).since(cursor))));
    }
    try (SgmRuntime sgm = onDisk(other)) {
      SgmException e =
          assertThrows(
              SgmException.class,
              () -> sgm.service().changes(CALLER, ChangesRequest.of(SCOPE).since(cursor)));
      assertEquals(ErrorCode.INVALID_REQUEST, e.code());
      assertEquals("since", e.details().get(0).field());
    }
  }

  @Test
  void entriesOlderThanTheRetentionArePrunedAndTheirCursorsExpire(@TempDir Path dir)
      throws Exception {
    String old;
    try (SgmRuntime sgm = onDisk(dir, ConfigLoader.CHANGES_RETENTION, "300ms")) {
      old = sgm.service().changes(CALLER, ChangesRequest.of(SCOPE)).next();
      sgm.service().store(CALLER, note("soon-pruned"));
      SgmException expired = null;
      long deadline = System.nanoTime() + 10_000_000_000L;
      while (expired == null && System.nanoTime() < deadline) {
        try {
          sgm.service().changes(CALLER, ChangesRequest.of(SCOPE).since(old));
          Thread.sleep(50);
        } catch (SgmException e) {
          expired = e;
        }
      }
      assertTrue(expired != null, "the old cursor expired within 10 s of a 300 ms retention");
      assertEquals(ErrorCode.CURSOR_EXPIRED, expired.code());
      assertEquals("since", expired.details().get(0).field());
      assertTrue(expired.getMessage().contains("retrieve"), expired.getMessage());
      assertTrue(expired.getMessage().contains("without since"), expired.getMessage());
      // The present is always a good place to follow from, and what commits later is seen.
      String now = sgm.service().changes(CALLER, ChangesRequest.of(SCOPE)).next();
      sgm.service().store(CALLER, note("fresh"));
      assertEquals(
          List.of("fresh"),
          ids(sgm.service().changes(CALLER, ChangesRequest.of(SCOPE).since(now))));
    }
    // The pruned mark is durable: the old cursor stays expired after a restart.
    try (SgmRuntime sgm = onDisk(dir, ConfigLoader.CHANGES_RETENTION, "7d")) {
      SgmException e =
          assertThrows(
              SgmException.class,
              () -> sgm.service().changes(CALLER, ChangesRequest.of(SCOPE).since(old)));
      assertEquals(ErrorCode.CURSOR_EXPIRED, e.code());
    }
  }

  /**
   * A consumer polls in a loop: once the server closed its watch on shutting down, a poll must fail
   * rather than return empty at once, or the loop would spin on a processor for ever.
   */
  @Test
  void aWatchClosedByShutDownFailsItsNextPollAsUnavailable() throws Exception {
    ChangeStream watch;
    try (SgmRuntime sgm = TestRuntimes.open()) {
      watch = sgm.service().watch(CALLER, ChangesRequest.of(SCOPE));
      sgm.service().store(CALLER, note("before-shutdown"));
      assertEquals(
          List.of("before-shutdown"),
          watch.poll(Duration.ofSeconds(30)).events().stream().map(ChangeEvent::id).toList());
    }
    SgmException ended = assertThrows(SgmException.class, () -> watch.poll(Duration.ofSeconds(30)));
    assertEquals(ErrorCode.UNAVAILABLE, ended.code());
    watch.close();
  }

  @Test
  void aRetentionThatIsNotADurationStopsStartUpNamingTheKey() {
    SgmException e =
        assertThrows(
            SgmException.class,
            () -> TestRuntimes.open(ConfigLoader.CHANGES_RETENTION, "forever").close());
    assertTrue(e.getMessage().contains(ConfigLoader.CHANGES_RETENTION), e.getMessage());
  }

  @Test
  void durationsReadInEveryFormOffered() {
    assertEquals(java.time.Duration.ofDays(7), ChangeFeed.parseDuration("k", "7d"));
    assertEquals(java.time.Duration.ofHours(12), ChangeFeed.parseDuration("k", "12h"));
    assertEquals(java.time.Duration.ofMillis(500), ChangeFeed.parseDuration("k", "500ms"));
    assertEquals(java.time.Duration.ofMinutes(30), ChangeFeed.parseDuration("k", "30m"));
    assertEquals(java.time.Duration.ofDays(2), ChangeFeed.parseDuration("k", "P2D"));
    assertThrows(SgmException.class, () -> ChangeFeed.parseDuration("k", "0s"));
  }
}
