package dev.sgm.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.transport.http.SgmHttpClient;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** tasks.claim stays atomic across nodes: many claimers on two nodes, exactly one winner. */
class TwoNodesClaimTest {
  private static final int ROUNDS = 100;
  private static final int CLAIMERS_PER_NODE = 16;

  @Test
  void twoNodesTimesSixteenClaimersHaveExactlyOneWinnerEveryRound() throws Exception {
    String database = PostgresCluster.get().newDatabase();
    try (PostgresServers.Node a = PostgresServers.start(database);
        PostgresServers.Node b = PostgresServers.start(database)) {
      List<SgmClient> nodes = List.of(new SgmHttpClient(a.url()), new SgmHttpClient(b.url()));
      int claimers = 2 * CLAIMERS_PER_NODE;
      ExecutorService pool = Executors.newFixedThreadPool(claimers);
      try {
        for (int round = 0; round < ROUNDS; round++) {
          String id = "task-" + round;
          nodes
              .get(round % 2)
              .call(
                  "store",
                  Json.parse(
                      "{\"record\":{\"id\":\""
                          + id
                          + "\",\"type\":\"task\",\"scope\":{\"project\":\"claims\"},"
                          + "\"provenance\":{\"agent\":\"planner\"},\"data\":{\"state\":\"open\"}}}"));
          CountDownLatch start = new CountDownLatch(1);
          List<Future<String>> outcomes = new ArrayList<>();
          for (int c = 0; c < claimers; c++) {
            SgmClient node = nodes.get(c % 2);
            String agent = "agent-" + c;
            outcomes.add(
                pool.submit(
                    () -> {
                      start.await();
                      try {
                        node.call(
                            "tasks.claim",
                            Json.parse(
                                "{\"scope\":{\"project\":\"claims\"},\"id\":\""
                                    + id
                                    + "\",\"agent\":\""
                                    + agent
                                    + "\"}"));
                        return agent;
                      } catch (SgmException e) {
                        assertEquals(ErrorCode.CONFLICT, e.code(), e.getMessage());
                        return null;
                      }
                    }));
          }
          start.countDown();
          List<String> winners = new ArrayList<>();
          for (Future<String> outcome : outcomes) {
            String winner = outcome.get(60, TimeUnit.SECONDS);
            if (winner != null) {
              winners.add(winner);
            }
          }
          assertEquals(1, winners.size(), "round " + round + ": " + winners);
          // Both nodes read the winner as the assignee.
          for (SgmClient node : nodes) {
            assertEquals(
                winners.get(0),
                node.call(
                        "read",
                        Json.parse("{\"scope\":{\"project\":\"claims\"},\"id\":\"" + id + "\"}"))
                    .path("record")
                    .path("data")
                    .path("assignee")
                    .asText());
          }
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
