package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Caller;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a writing child JVM with SIGKILL and checks that every store it acknowledged is there after
 * a restart: the embedded store writes each commit through before the call returns.
 */
class DurabilityTest {
  private static final int ACKS_BEFORE_KILL = 400;

  @Test
  void everyAcknowledgedStoreSurvivesKillDashNine(@TempDir Path dir) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(DurabilityWriter.class.getName());
    command.add(dir.toString());
    Process child = new ProcessBuilder(command).redirectErrorStream(false).start();
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader in =
                  new BufferedReader(
                      new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                  if (line.startsWith("ACK ")) {
                    acknowledged.add(line.substring(4));
                  }
                }
              } catch (java.io.IOException e) {
                // The pipe breaks when the child is killed.
              }
            });
    reader.start();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (acknowledged.size() < ACKS_BEFORE_KILL
        && System.nanoTime() < deadline
        && child.isAlive()) {
      Thread.sleep(5);
    }
    assertTrue(child.isAlive(), "the writer was still writing");
    child.destroyForcibly(); // SIGKILL: no shutdown hooks, no close
    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    reader.join(10_000);
    assertTrue(acknowledged.size() >= ACKS_BEFORE_KILL, "acknowledged " + acknowledged.size());

    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()))) {
      Scope scope = Scope.of("project", "durable");
      List<String> lost = new ArrayList<>();
      for (String id : acknowledged) {
        try {
          sgm.service().read(Caller.embedded(), new ReadRequest(scope, id, false));
        } catch (dev.sgm.api.SgmException e) {
          lost.add(id);
        }
      }
      assertEquals(List.of(), lost, "acknowledged stores lost after kill -9");
      long total =
          sgm.service()
              .retrieve(Caller.embedded(), RetrieveQuery.builder(scope).limit(1).build())
              .total();
      assertTrue(
          total >= acknowledged.size(),
          "total " + total + " >= acknowledged " + acknowledged.size());
      System.out.printf(
          "durability: %d acknowledged before SIGKILL, %d present after restart, 0 lost%n",
          acknowledged.size(), total);
    }
  }
}
