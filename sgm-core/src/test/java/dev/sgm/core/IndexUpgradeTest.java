package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import dev.sgm.api.StoreRequest;
import dev.sgm.search.SearchIndex;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.lucene.analysis.standard.StandardAnalyzer;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.FSDirectory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An index an earlier build wrote, in a layout this build's writer refuses to open (segments in the
 * order documents arrived), is rebuilt from the store on start-up: nothing stored stops being
 * found, and the index then records this build's format.
 */
class IndexUpgradeTest {
  @Test
  void anIndexOfAnEarlierFormatIsRebuiltAndFindsEveryRecord(@TempDir Path dir) throws Exception {
    Map<String, String> options = Map.of(ConfigLoader.DATA_DIR, dir.toString());
    Scope scope = Scope.of("project", "upgrade");
    try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
      for (int i = 0; i < 30; i++) {
        sgm.service()
            .store(
                Caller.embedded(),
                StoreRequest.of(
                    Json.parseObject(
                        "{\"id\":\"note-"
                            + i
                            + "\",\"type\":\"note\",\"scope\":{\"project\":\"upgrade\"},"
                            + "\"content\":\"the release checklist, step "
                            + i
                            + "\",\"provenance\":{\"agent\":\"t\"}}",
                        "record")));
      }
    }
    Path index = dir.resolve("index");
    try (FSDirectory directory = FSDirectory.open(index);
        IndexWriter old =
            new IndexWriter(
                directory,
                new IndexWriterConfig(new StandardAnalyzer())
                    .setOpenMode(IndexWriterConfig.OpenMode.CREATE))) {
      Document doc = new Document();
      doc.add(new NumericDocValuesField("row", 1));
      old.addDocument(doc);
      old.setLiveCommitData(Map.of("sgm.format", "3", "sgm.seq", "1").entrySet());
      old.commit();
    }

    try (SgmRuntime sgm = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
      List<String> found = new ArrayList<>();
      for (var record :
          sgm.service()
              .retrieve(
                  Caller.embedded(),
                  RetrieveQuery.builder(scope).text("release checklist").limit(100).build())
              .records()) {
        found.add(record.id());
      }
      assertEquals(30, found.size(), "found after the upgrade: " + found);
    }
    assertEquals(IndexCommitData.FORMAT, SearchIndex.committedData(index).get("sgm.format"));
  }
}
