package dev.sgm.profile.collaboration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leases on claims: a claimer that stops heartbeating loses the task within its lease plus a stated
 * bound, heartbeats keep it, a heartbeat after the lapse is a conflict, and 16 claimers racing the
 * lapse get exactly one winner and one {@code expired} event.
 */
class LeaseTest {
  /** How late, at most, the server gives a lapsed task back: the bound these tests state. */
  private static final long BOUND_MS = 250;

  private static final Caller CALLER = Caller.embedded();
  private static final Scope SCOPE = Scope.of("project", "leases");

  private static SgmRuntime open(Path dir) {
    return SgmRuntime.open(
        ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()));
  }

  private static JsonNode call(SgmRuntime sgm, String op, String json) {
    return sgm.service().invoke(CALLER, op, Json.parse(json.replace('\'', '"')));
  }

  private static void task(SgmRuntime sgm, String id) {
    call(
        sgm,
        "store",
        "{'record': {'id': '"
            + id
            + "', 'type': 'task', 'scope': {'project': 'leases'}, 'provenance': {'agent': 'lead'},"
            + " 'data': {'state': 'open'}}}");
  }

  private static JsonNode claim(SgmRuntime sgm, String id, String agent, Long leaseMs) {
    return call(
        sgm,
        "tasks.claim",
        "{'scope': {'project': 'leases'}, 'id': '"
            + id
            + "', 'agent': '"
            + agent
            + "'"
            + (leaseMs == null ? "" : ", 'lease_ms': " + leaseMs)
            + "}");
  }

  private static JsonNode heartbeat(SgmRuntime sgm, String id, String agent) {
    return call(
        sgm,
        "tasks.heartbeat",
        "{'scope': {'project': 'leases'}, 'id': '" + id + "', 'agent': '" + agent + "'}");
  }

  private static JsonNode data(SgmRuntime sgm, String id) {
    return call(sgm, "read", "{'scope': {'project': 'leases'}, 'id': '" + id + "'}")
        .path("record")
        .path("data");
  }

  private static List<String> ready(SgmRuntime sgm) {
    List<String> ids = new ArrayList<>();
    call(sgm, "tasks.ready", "{'scope': {'project': 'leases'}}")
        .path("tasks")
        .forEach(t -> ids.add(t.path("id").asText()));
    return ids;
  }

  private static List<String> events(SgmRuntime sgm, String since, String id) {
    List<String> kinds = new ArrayList<>();
    for (ChangeEvent e :
        sgm.service().changes(CALLER, ChangesRequest.of(SCOPE).since(since)).events()) {
      if (e.id().equals(id)) {
        kinds.add(e.kind());
      }
    }
    return kinds;
  }

  @Test
  void aClaimAHeartbeatAndAnAcceptedHandoffAreWrittenByTheAgentTheyName(@TempDir Path dir) {
    try (SgmRuntime sgm = open(dir)) {
      String since = sgm.service().changes(CALLER, ChangesRequest.of(SCOPE)).next();
      task(sgm, "t0");
      claim(sgm, "t0", "worker-1", 60_000L);
      heartbeat(sgm, "t0", "worker-1");
      call(
          sgm,
          "store",
          "{'record': {'id': 'h0', 'type': 'handoff', 'scope': {'project': 'leases'},"
              + " 'provenance': {'agent': 'lead'}, 'content': 'finish the migration',"
              + " 'data': {'from_agent': 'lead', 'state': 'open', 'summary': 'half done'}}}");
      call(
          sgm,
          "handoffs.accept",
          "{'scope': {'project': 'leases'}, 'id': 'h0', 'agent': 'worker-2'}");
      List<String> writers = new ArrayList<>();
      for (ChangeEvent e :
          sgm.service().changes(CALLER, ChangesRequest.of(SCOPE).since(since)).events()) {
        writers.add(e.id() + " " + e.version() + " by " + e.agent());
      }
      assertEquals(
          List.of(
              "t0 1 by lead",
              "t0 2 by worker-1",
              "t0 3 by worker-1",
              "h0 1 by lead",
              "h0 2 by worker-2"),
          writers);
      task(sgm, "t9");
      SgmException tooLong =
          assertThrows(SgmException.class, () -> claim(sgm, "t9", "w".repeat(257), null));
      assertEquals(ErrorCode.INVALID_REQUEST, tooLong.code());
      assertEquals("agent", tooLong.details().get(0).field(), "an agent name, as writer");
      JsonNode task = call(sgm, "read", "{'scope': {'project': 'leases'}, 'id': 't0'}");
      assertEquals(
          "lead",
          task.path("record").path("provenance").path("agent").asText(),
          "the creator stays the record's agent");
    }
  }

  @Test
  void aClaimThatIsNotRenewedLapsesWithinItsLeaseAndTheBound(@TempDir Path dir) throws Exception {
    try (SgmRuntime sgm = open(dir)) {
      task(sgm, "t1");
      String since = sgm.service().changes(CALLER, ChangesRequest.of(SCOPE)).next();
      long lease = 500;
      Instant claimed = Instant.now();
      JsonNode claim = claim(sgm, "t1", "agent-a", lease);
      assertTrue(claim.path("record").path("data").has("lease_expires_at"), claim::toString);
      assertEquals(List.of(), ready(sgm), "claimed: not ready");
      // Nobody calls anything: the server alone gives the task back.
      while (data(sgm, "t1").path("state").asText().equals("in_progress")) {
        assertTrue(
            Instant.now().isBefore(claimed.plusMillis(lease + BOUND_MS)),
            "still claimed " + (lease + BOUND_MS) + " ms after a " + lease + " ms lease");
        Thread.sleep(5);
      }
      long lapsedAfter = java.time.Duration.between(claimed, Instant.now()).toMillis();
      assertTrue(lapsedAfter >= lease, "lapsed after " + lapsedAfter + " ms, before its lease");
      JsonNode back = data(sgm, "t1");
      assertEquals("open", back.path("state").asText());
      assertTrue(!back.has("assignee") && !back.has("lease_expires_at"), back::toString);
      assertEquals(List.of("stored", "expired"), events(sgm, since, "t1"));
      assertEquals(List.of("t1"), ready(sgm), "open again: ready");
      SgmException late = assertThrows(SgmException.class, () -> heartbeat(sgm, "t1", "agent-a"));
      assertEquals(ErrorCode.CONFLICT, late.code());
      assertEquals(
          "agent-b",
          claim(sgm, "t1", "agent-b", null).path("record").path("data").path("assignee").asText());
    }
  }

  @Test
  void heartbeatsKeepAClaimAndItLapsesWhenThedStop(@TempDir Path dir) throws Exception {
    try (SgmRuntime sgm = open(dir)) {
      task(sgm, "t2");
      claim(sgm, "t2", "agent-a", 300L);
      Instant end = Instant.now().plusMillis(1200);
      while (Instant.now().isBefore(end)) {
        Thread.sleep(80);
        heartbeat(sgm, "t2", "agent-a");
      }
      assertEquals("agent-a", data(sgm, "t2").path("assignee").asText(), "kept by heartbeats");
      SgmException other = assertThrows(SgmException.class, () -> heartbeat(sgm, "t2", "agent-b"));
      assertEquals(ErrorCode.CONFLICT, other.code());
      Thread.sleep(300 + BOUND_MS);
      assertEquals("open", data(sgm, "t2").path("state").asText(), "lapsed once they stopped");
    }
  }

  @Test
  void sixteenClaimersRacingTheLapseGetExactlyOneWinner(@TempDir Path dir) throws Exception {
    try (SgmRuntime sgm = open(dir)) {
      for (int round = 0; round < 5; round++) {
        String id = "race-" + round;
        task(sgm, id);
        String since = sgm.service().changes(CALLER, ChangesRequest.of(SCOPE)).next();
        JsonNode claim = claim(sgm, id, "holder", 200L);
        Instant expires =
            Instant.parse(claim.path("record").path("data").path("lease_expires_at").asText());
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger wins = new AtomicInteger();
        AtomicInteger conflicts = new AtomicInteger();
        List<Throwable> unexpected = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int a = 0; a < 16; a++) {
          String agent = "agent-" + a;
          threads.add(
              Thread.ofPlatform()
                  .start(
                      () -> {
                        try {
                          go.await();
                          // Until the lease lapses every claim is a conflict; keep trying.
                          while (true) {
                            try {
                              claim(sgm, id, agent, null);
                              wins.incrementAndGet();
                              return;
                            } catch (SgmException e) {
                              if (e.code() != ErrorCode.CONFLICT) {
                                throw e;
                              }
                              if (!data(sgm, id)
                                  .path("assignee")
                                  .asText("holder")
                                  .equals("holder")) {
                                conflicts.incrementAndGet();
                                return;
                              }
                            }
                          }
                        } catch (Throwable t) {
                          unexpected.add(t);
                        }
                      }));
        }
        // Released just before the lapse, so they race the server's own give-back.
        Thread.sleep(Math.max(0, expires.toEpochMilli() - System.currentTimeMillis() - 20));
        go.countDown();
        for (Thread t : threads) {
          t.join(10_000);
        }
        assertEquals(List.of(), unexpected);
        assertEquals(1, wins.get(), "round " + round + ": one winner");
        assertEquals(15, conflicts.get(), "round " + round + ": every other claimer a conflict");
        assertEquals(
            List.of("stored", "expired", "stored"), events(sgm, since, id), "round " + round);
      }
    }
  }

  @Test
  void badLeasesAndHeartbeatsWithoutALeaseAreRefused(@TempDir Path dir) {
    try (SgmRuntime sgm = open(dir)) {
      task(sgm, "t3");
      SgmException tooShort = assertThrows(SgmException.class, () -> claim(sgm, "t3", "a", 5L));
      assertEquals(ErrorCode.INVALID_REQUEST, tooShort.code());
      assertEquals("lease_ms", tooShort.details().get(0).field());
      claim(sgm, "t3", "a", null);
      SgmException noLease = assertThrows(SgmException.class, () -> heartbeat(sgm, "t3", "a"));
      assertEquals(ErrorCode.CONFLICT, noLease.code());
      assertTrue(noLease.getMessage().contains("without lease_ms"), noLease.getMessage());
    }
  }
}
