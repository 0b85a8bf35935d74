package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Caller;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import dev.sgm.search.SearchIndex;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a writing child JVM with SIGKILL after its stores were committed but before the search
 * index committed them (the index commits every few seconds), restarts, and checks that every
 * acknowledged record is found by text: the index catches up from the storage's change log.
 */
class IndexCrashTest {
  private static final int ACKS_BEFORE_KILL = 200;

  @Test
  void recordsCommittedButNotIndexedAreFoundAfterARestart(@TempDir Path dir) throws Exception {
    Set<String> acknowledged = KilledWriter.writeThenKill(dir, ACKS_BEFORE_KILL);

    long indexedThrough;
    try (SearchIndex index = SearchIndex.open(dir.resolve("index"))) {
      indexedThrough = Long.parseLong(index.commitData().getOrDefault("sgm.seq", "0"));
    }
    assertTrue(
        indexedThrough < acknowledged.size(),
        "the index had committed through write "
            + indexedThrough
            + " of "
            + acknowledged.size()
            + " acknowledged: the crash must come before the index commits them");

    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, dir.toString()), Map.of()))) {
      Scope scope = Scope.of("project", "durable");
      List<String> found = new ArrayList<>();
      String cursor = null;
      do {
        var page =
            sgm.service()
                .retrieve(
                    Caller.embedded(),
                    RetrieveQuery.builder(scope)
                        .text("acknowledged crash")
                        .limit(RetrieveQuery.MAX_LIMIT)
                        .cursor(cursor)
                        .build());
        page.records().forEach(r -> found.add(r.id()));
        cursor = page.nextCursor();
      } while (cursor != null);
      List<String> missing = new ArrayList<>(acknowledged);
      missing.removeAll(found);
      assertEquals(List.of(), missing, "acknowledged records not found by text after the crash");
    }
  }
}
