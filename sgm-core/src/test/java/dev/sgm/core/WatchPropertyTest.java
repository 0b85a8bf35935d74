package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Caller;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.ChangesResult;
import dev.sgm.api.DeleteRequest;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoreRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Concurrent writers (stores, deletes, batch stores) while watchers leave and resume from their
 * cursor at random points, across a server restart, and with a buffer small enough that they fall
 * behind: every watcher sees every event of its scopes exactly once, in commit order, the same
 * sequence the {@code changes} operation reads from the log.
 */
class WatchPropertyTest {
  private static final Caller CALLER = Caller.embedded();
  private static final int WRITERS = 4;
  private static final int WATCHERS = 4;

  private static SgmRuntime open(Path dir) {
    return SgmRuntime.open(
        ConfigLoader.load(
            Map.of(ConfigLoader.DATA_DIR, dir.toString(), ConfigLoader.WATCH_BUFFER, "16"),
            Map.of()));
  }

  private static StoreRequest note(String project, String session, String id, int n) {
    return StoreRequest.of(
        Json.parseObject(
            "{\"id\":\""
                + id
                + "\",\"type\":\"note\",\"scope\":{\"project\":\""
                + project
                + "\""
                + (session == null ? "" : ",\"session\":\"" + session + "\"")
                + "},\"content\":\"n"
                + n
                + "\",\"provenance\":{\"agent\":\"w\"}}",
            "record"));
  }

  /** One watcher: what it follows, the events it received, and where it would resume. */
  private static final class Watcher {
    final ChangesRequest request;
    final List<ChangeEvent> seen = new CopyOnWriteArrayList<>();
    volatile String cursor;

    Watcher(ChangesRequest request, String cursor) {
      this.request = request;
      this.cursor = cursor;
    }
  }

  @Test
  void everyWatcherSeesEveryEventOnceInCommitOrder(@TempDir Path dir) throws Exception {
    Scope project = Scope.of("project", "prop");
    List<Watcher> watchers = new ArrayList<>();
    String start;
    AtomicReference<SgmRuntime> runtime = new AtomicReference<>(open(dir));
    start = runtime.get().service().changes(CALLER, ChangesRequest.of(project)).next();
    for (int w = 0; w < WATCHERS; w++) {
      ScopeMode mode = w % 2 == 0 ? ScopeMode.EXACT : ScopeMode.DESCENDANTS;
      watchers.add(new Watcher(new ChangesRequest(project, mode, null, List.of(), 100), start));
    }
    for (int phase = 0; phase < 2; phase++) {
      SgmRuntime sgm = runtime.get();
      AtomicBoolean writing = new AtomicBoolean(true);
      List<Throwable> failures = new CopyOnWriteArrayList<>();
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < WRITERS; t++) {
        int writer = t;
        int seed = phase * 100 + t;
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      Random random = new Random(seed);
                      int n = 0;
                      try {
                        while (writing.get()) {
                          String session = random.nextBoolean() ? null : "s" + writer;
                          String id = "r" + writer + "-" + random.nextInt(20);
                          int op = random.nextInt(10);
                          if (op < 6) {
                            sgm.service().store(CALLER, note("prop", session, id, n++));
                          } else if (op < 8) {
                            try {
                              Scope scope =
                                  session == null
                                      ? Scope.of("project", "prop")
                                      : Scope.of("project", "prop", "session", session);
                              sgm.service().delete(CALLER, new DeleteRequest(scope, id, null));
                            } catch (SgmException e) {
                              // Not there: nothing to delete.
                            }
                          } else {
                            List<com.fasterxml.jackson.databind.JsonNode> batch = new ArrayList<>();
                            for (int b = 0; b < 3; b++) {
                              batch.add(
                                  note("prop", session, "b" + writer + "-" + n + "-" + b, n)
                                      .record());
                            }
                            n++;
                            sgm.service().storeBatch(CALLER, new BatchStoreRequest(batch, false));
                          }
                        }
                      } catch (Throwable e) {
                        failures.add(e);
                      }
                    }));
      }
      for (Watcher watcher : watchers) {
        threads.add(Thread.ofPlatform().start(() -> follow(sgm, watcher, writing, failures)));
      }
      Thread.sleep(2500);
      writing.set(false);
      for (Thread thread : threads) {
        thread.join(30_000);
      }
      assertEquals(List.of(), failures);
      if (phase == 0) {
        // The server restarts; the watchers resume from their cursors on the new one.
        sgm.close();
        runtime.set(open(dir));
      }
    }
    SgmRuntime sgm = runtime.get();
    try {
      for (Watcher watcher : watchers) {
        // Catch up with what committed after the watcher last left.
        follow(sgm, watcher, new AtomicBoolean(false), new CopyOnWriteArrayList<>());
        List<String> truth = all(sgm, watcher.request.since(start));
        List<String> seen = watcher.seen.stream().map(WatchPropertyTest::describe).toList();
        assertTrue(truth.size() > 100, "enough happened: " + truth.size());
        assertEquals(truth.size(), seen.size(), watcher.request.scopeMode() + ": as many events");
        assertEquals(truth, seen, watcher.request.scopeMode() + ": the same events, in order");
      }
    } finally {
      sgm.close();
    }
  }

  /** Watches until writing stops and the stream is drained, leaving and resuming at random. */
  private static void follow(
      SgmRuntime sgm, Watcher watcher, AtomicBoolean writing, List<Throwable> failures) {
    Random random = new Random(watcher.hashCode());
    try {
      while (true) {
        try (ChangeStream stream =
            sgm.service().watch(CALLER, watcher.request.since(watcher.cursor))) {
          int stayFor = random.nextInt(40);
          for (int polls = 0; polls < stayFor; polls++) {
            ChangeStream.Batch batch = stream.poll(Duration.ofMillis(50));
            watcher.seen.addAll(batch.events());
            watcher.cursor = stream.cursor();
            if (batch.events().isEmpty() && !writing.get()) {
              return;
            }
            if (random.nextInt(8) == 0) {
              // A slow consumer: the buffer of 16 overflows meanwhile.
              Thread.sleep(30);
            }
          }
        }
      }
    } catch (Throwable e) {
      failures.add(e);
    }
  }

  private static List<String> all(SgmRuntime sgm, ChangesRequest request) {
    List<String> events = new ArrayList<>();
    String cursor = request.since();
    while (true) {
      ChangesResult page = sgm.service().changes(CALLER, request.since(cursor));
      page.events().forEach(e -> events.add(describe(e)));
      cursor = page.next();
      if (page.events().size() < request.limit()) {
        return events;
      }
    }
  }

  private static String describe(ChangeEvent e) {
    return e.cursor()
        + " "
        + e.kind()
        + " "
        + e.scope().canonical()
        + " "
        + e.id()
        + " v"
        + e.version();
  }
}
