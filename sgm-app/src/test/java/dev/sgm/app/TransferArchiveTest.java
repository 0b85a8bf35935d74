package dev.sgm.app;

import static dev.sgm.app.CliRun.sgm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sgm export --all} and {@code sgm import} of its archive: the whole memory, exactly. */
class TransferArchiveTest {
  @TempDir Path dir;

  private static String note(String project, String id, String content) {
    return "{\"id\":\""
        + id
        + "\",\"type\":\"note\",\"scope\":{\"project\":\""
        + project
        + "\"},\"content\":\""
        + content
        + "\",\"provenance\":{\"agent\":\"me\"}}";
  }

  @Test
  void anArchiveOfEveryScopeIsImportedWithItsVersionsAndDeletions() throws Exception {
    String source = dir.resolve("source").toString();
    for (String project : List.of("a", "b", "c")) {
      for (int i = 0; i < 4; i++) {
        assertEquals(0, sgm("store", note(project, "r" + i, "first"), "--data", source).code());
      }
      assertEquals(0, sgm("store", note(project, "r0", "second"), "--data", source).code());
      CliRun deleted =
          sgm("delete", "--scope", "project=" + project, "--id", "r1", "--data", source);
      assertEquals(0, deleted.code(), deleted.err());
    }
    Path archive = dir.resolve("all.jsonl");
    CliRun exported = sgm("export", "--all", "--out", archive.toString(), "--data", source);
    assertEquals(0, exported.code(), exported.err());
    assertTrue(
        exported.err().contains("exported 12 records, 18 versions, 0 snapshots and 0 contents"),
        exported.err());
    String target = dir.resolve("target").toString();
    CliRun imported = sgm("import", archive.toString(), "--data", target);
    assertEquals(0, imported.code(), imported.err());
    assertTrue(imported.err().contains("imported 12 records, 18 versions"), imported.err());
    Path again = dir.resolve("again.jsonl");
    assertEquals(0, sgm("export", "--all", "--out", again.toString(), "--data", target).code());
    assertEquals(comparable(archive), comparable(again));

    CliRun versions =
        sgm(
            "call",
            "history.versions",
            "{\"scope\":{\"project\":\"b\"},\"id\":\"r0\"}",
            "--data",
            target);
    assertEquals(0, versions.code(), versions.err());
    assertEquals(2, Json.parse(versions.out()).path("versions").size(), versions.out());

    CliRun twice = sgm("import", archive.toString(), "--data", target);
    assertNotEquals(0, twice.code());
    assertTrue(twice.err().contains("empty memory"), twice.err());
  }

  /** The archive without what is the storage's own: its header and write sequence numbers. */
  private static List<String> comparable(Path archive) throws Exception {
    List<String> lines = new ArrayList<>();
    for (String line : Files.readAllLines(archive).subList(1, Files.readAllLines(archive).size())) {
      ObjectNode n = (ObjectNode) Json.parse(line);
      n.remove("seq");
      lines.add(Json.write(n));
    }
    return lines;
  }
}
