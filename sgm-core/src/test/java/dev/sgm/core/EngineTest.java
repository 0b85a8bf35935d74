package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.DeleteRequest;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.StoreResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engine behaviour that the wire-level TCK cannot see: concurrency, restarts, soft deletes, limits.
 */
class EngineTest {
  private static final Caller CALLER = Caller.embedded();
  private static final Scope SCOPE = Scope.of("project", "engine");

  private static ObjectNode note(String id, String content) {
    return Json.parseObject(
        "{\"id\":\""
            + id
            + "\",\"type\":\"note\",\"scope\":{\"project\":\"engine\"},\"content\":\""
            + content
            + "\",\"provenance\":{\"agent\":\"t\"}}",
        "record");
  }

  @Test
  void concurrentCreatesOfOneIdentityCreateItOnce() throws Exception {
    try (SgmRuntime sgm = TestRuntimes.open()) {
      ExecutorService pool = Executors.newFixedThreadPool(16);
      List<Callable<StoreResult>> calls = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        calls.add(() -> sgm.service().store(CALLER, StoreRequest.of(note("contended", "same"))));
      }
      int created = 0;
      for (Future<StoreResult> f : pool.invokeAll(calls)) {
        created += f.get().created() ? 1 : 0;
      }
      pool.shutdown();
      assertEquals(1, created, "exactly one store created the record");
      assertEquals(
          1,
          sgm.service()
              .read(CALLER, new ReadRequest(SCOPE, "contended", false))
              .record()
              .version());
    }
  }

  @Test
  void concurrentChangesEachGetTheirOwnVersion() throws Exception {
    try (SgmRuntime sgm = TestRuntimes.open()) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      List<Callable<Long>> calls = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String content = "change " + i;
        calls.add(
            () ->
                sgm.service()
                    .store(CALLER, StoreRequest.of(note("hot", content)))
                    .record()
                    .version());
      }
      Set<Long> versions = new HashSet<>();
      for (Future<Long> f : pool.invokeAll(calls)) {
        versions.add(f.get());
      }
      pool.shutdown();
      assertEquals(40, versions.size(), "no two changes share a version");
      assertEquals(
          40, sgm.service().read(CALLER, new ReadRequest(SCOPE, "hot", false)).record().version());
    }
  }

  /** Another process that opens the data directory {@code args[0]}, as {@code sgm} would. */
  static final class OpenStore {
    public static void main(String[] args) {
      try {
        SgmRuntime.open(ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, args[0]), Map.of()))
            .close();
        System.exit(0);
      } catch (dev.sgm.api.SgmException e) {
        System.out.println("sgm: " + e.code().wireName() + ": " + e.getMessage());
        System.exit(1);
      }
    }
  }

  @Test
  void dataSurvivesARestartAndTheStoreCannotBeOpenedByTwoProcesses(@TempDir Path dir)
      throws Exception {
    Map<String, String> options = Map.of(ConfigLoader.DATA_DIR, dir.toString());
    try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
      sgm.service().store(CALLER, StoreRequest.of(note("kept", "across restarts")));
      Process other =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-cp",
                  System.getProperty("java.class.path"),
                  OpenStore.class.getName(),
                  dir.toString())
              .redirectErrorStream(true)
              .start();
      String output = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertEquals(1, other.waitFor(), output);
      assertTrue(output.contains("sgm: unavailable: the data store"), output);
      assertTrue(output.contains("is in use by another process"), output);
    }
    try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
      assertEquals(
          "across restarts",
          sgm.service()
              .read(CALLER, new ReadRequest(SCOPE, "kept", false))
              .record()
              .content()
              .orElseThrow());
      // New writes after a restart keep ordering after old ones.
      sgm.service().store(CALLER, StoreRequest.of(note("later", "x")));
      assertEquals(
          List.of("later", "kept"),
          sgm.service().retrieve(CALLER, RetrieveQuery.of(SCOPE)).records().stream()
              .map(r -> r.id())
              .toList());
    }
  }

  @Test
  void withAProfileThatKeepsDeletedRecordsDeletesAreSoftAndVersionsContinue() {
    try (SgmRuntime sgm = TestRuntimes.open("example.keep-deleted", "true")) {
      sgm.service().store(CALLER, StoreRequest.of(note("soft", "v1")));
      assertTrue(sgm.service().delete(CALLER, new DeleteRequest(SCOPE, "soft", null)).soft());
      assertThrows(
          SgmException.class,
          () -> sgm.service().read(CALLER, new ReadRequest(SCOPE, "soft", false)));
      assertEquals(0, sgm.service().retrieve(CALLER, RetrieveQuery.of(SCOPE)).total());
      StoreResult again = sgm.service().store(CALLER, StoreRequest.of(note("soft", "v1")));
      assertTrue(again.created(), "re-created over the hidden record");
      assertEquals(2, again.record().version(), "versions never repeat");
    }
    try (SgmRuntime sgm = TestRuntimes.open()) {
      sgm.service().store(CALLER, StoreRequest.of(note("hard", "v1")));
      assertFalse(sgm.service().delete(CALLER, new DeleteRequest(SCOPE, "hard", null)).soft());
      assertEquals(
          1, sgm.service().store(CALLER, StoreRequest.of(note("hard", "v1"))).record().version());
    }
  }

  @Test
  void oversizedRecordsAreTooLarge() {
    try (SgmRuntime sgm = TestRuntimes.open("record.max.bytes", "2048")) {
      SgmException e =
          assertThrows(
              SgmException.class,
              () -> sgm.service().store(CALLER, StoreRequest.of(note("big", "x".repeat(3000)))));
      assertEquals(ErrorCode.TOO_LARGE, e.code());
      assertEquals(2048, sgm.discovery().maxRecordBytes());
    }
    try (SgmRuntime sgm = TestRuntimes.open()) {
      // The default limit admits a record just under 1 MiB.
      sgm.service().store(CALLER, StoreRequest.of(note("large", "y".repeat(1_000_000))));
      assertEquals(
          1_000_000,
          sgm.service()
              .read(CALLER, new ReadRequest(SCOPE, "large", false))
              .record()
              .content()
              .orElseThrow()
              .length());
    }
  }

  @Test
  void aFailedStoreLeavesNothingHalfWritten() {
    try (SgmRuntime sgm = TestRuntimes.open()) {
      ObjectNode request = Json.object();
      request
          .putArray("records")
          .add(note("first", "a"))
          .add(Json.parseObject("{\"id\":\"x\"}", "r"));
      assertThrows(SgmException.class, () -> sgm.service().invoke(CALLER, "store_batch", request));
      assertEquals(0, sgm.service().retrieve(CALLER, RetrieveQuery.of(SCOPE)).total());
    }
  }
}
