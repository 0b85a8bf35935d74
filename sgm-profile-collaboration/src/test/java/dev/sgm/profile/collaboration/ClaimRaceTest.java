package dev.sgm.profile.collaboration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 16 agents claim the same 100 tasks at once: each task gets exactly one owner, every loser a
 * conflict.
 */
class ClaimRaceTest {
  @Test
  void everyTaskHasExactlyOneOwner(@TempDir Path dir) throws Exception {
    int agents = 16;
    int tasks = 100;
    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()))) {
      StringBuilder batch = new StringBuilder("{\"records\":[");
      for (int i = 0; i < tasks; i++) {
        batch
            .append(i == 0 ? "" : ",")
            .append("{\"id\":\"t")
            .append(i)
            .append(
                "\",\"type\":\"task\",\"scope\":{\"project\":\"race\"},\"provenance\":{\"agent\":\"lead\"},")
            .append("\"data\":{\"state\":\"open\"}}");
      }
      sgm.service().invoke(Caller.embedded(), "store_batch", Json.parse(batch + "]}"));
      Map<String, List<String>> winners = new ConcurrentHashMap<>();
      AtomicInteger conflicts = new AtomicInteger();
      List<Throwable> unexpected = new ArrayList<>();
      CountDownLatch start = new CountDownLatch(1);
      List<Thread> threads = new ArrayList<>();
      for (int a = 0; a < agents; a++) {
        String agent = "agent-" + a;
        threads.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      try {
                        start.await();
                        for (int i = 0; i < tasks; i++) {
                          try {
                            JsonNode claimed =
                                sgm.service()
                                    .invoke(
                                        Caller.embedded(),
                                        "tasks.claim",
                                        Json.parse(
                                            "{\"scope\":{\"project\":\"race\"},\"id\":\"t"
                                                + i
                                                + "\",\"agent\":\""
                                                + agent
                                                + "\"}"));
                            winners
                                .computeIfAbsent(
                                    "t" + i,
                                    k -> java.util.Collections.synchronizedList(new ArrayList<>()))
                                .add(claimed.path("record").path("data").path("assignee").asText());
                          } catch (SgmException e) {
                            if (e.code() == ErrorCode.CONFLICT) {
                              conflicts.incrementAndGet();
                            } else {
                              synchronized (unexpected) {
                                unexpected.add(e);
                              }
                            }
                          }
                        }
                      } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                      }
                    }));
      }
      start.countDown();
      for (Thread thread : threads) {
        thread.join();
      }
      assertEquals(List.of(), unexpected);
      assertEquals(tasks, winners.size(), "every task was claimed");
      Map<String, String> owners = new HashMap<>();
      winners.forEach(
          (task, claimers) -> {
            assertEquals(1, claimers.size(), task + " claimed by " + claimers);
            owners.put(task, claimers.get(0));
          });
      assertEquals(tasks * (agents - 1), conflicts.get(), "every other claim was a conflict");
      for (int i = 0; i < tasks; i++) {
        JsonNode task =
            sgm.service()
                .invoke(
                    Caller.embedded(),
                    "read",
                    Json.parse("{\"scope\":{\"project\":\"race\"},\"id\":\"t" + i + "\"}"))
                .path("record");
        assertEquals(owners.get("t" + i), task.path("data").path("assignee").asText());
        assertTrue(task.path("version").asLong() == 2, "claimed once: " + task);
      }
    }
  }
}
