package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store restored from a backup under a search index built later: the index has applied writes the
 * store no longer has, and new writes reuse their sequence numbers. The index is rebuilt, so what
 * is written after the restore is found by text.
 */
class RestoredStoreTest {
  private static SgmRuntime open(Path dir) {
    return SgmRuntime.open(
        ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()));
  }

  private static void store(SgmRuntime sgm, String id, String content) {
    sgm.service()
        .invoke(
            Caller.embedded(),
            "store",
            Json.parse(
                "{\"record\":{\"id\":\""
                    + id
                    + "\",\"type\":\"note\",\"scope\":{\"project\":\"restore\"},\"content\":\""
                    + content
                    + "\",\"provenance\":{\"agent\":\"a\"}}}"));
  }

  private static List<String> found(SgmRuntime sgm, String text) throws InterruptedException {
    List<String> ids = List.of();
    for (int attempt = 0; attempt < 50; attempt++) {
      ids =
          sgm
              .service()
              .retrieve(
                  Caller.embedded(),
                  RetrieveQuery.builder(Scope.of("project", "restore")).text(text).build())
              .records()
              .stream()
              .map(r -> r.id())
              .toList();
      if (!ids.isEmpty()) {
        return ids;
      }
      Thread.sleep(100);
    }
    return ids;
  }

  @Test
  void anIndexAheadOfARestoredStoreIsRebuilt(@TempDir Path dir) throws Exception {
    try (SgmRuntime sgm = open(dir)) {
      store(sgm, "kept", "alpaca meadow");
    }
    Path backup = dir.resolveSibling(dir.getFileName() + "-backup.mv.db");
    Files.copy(dir.resolve("sgm.mv.db"), backup, StandardCopyOption.REPLACE_EXISTING);
    try (SgmRuntime sgm = open(dir)) {
      store(sgm, "lost-1", "zebra stripes");
      store(sgm, "lost-2", "zebra stripes");
      assertEquals(2, found(sgm, "zebra stripes").size());
    }
    Files.copy(backup, dir.resolve("sgm.mv.db"), StandardCopyOption.REPLACE_EXISTING);
    try (SgmRuntime sgm = open(dir)) {
      store(sgm, "new", "quokka smile");
      assertEquals(List.of("new"), found(sgm, "quokka smile"));
      assertEquals(List.of("kept"), found(sgm, "alpaca meadow"));
    }
  }
}
