package dev.sgm.profile.code;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.SgmException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Diffs written by real git (and plain diff -u) are read with the right files, hunks and lines. */
class DiffAnalysisTest {
  @TempDir Path repo;

  @Test
  void gitDiffWithRenamesBinariesAdditionsDeletionsAndMultipleHunks() throws Exception {
    git("init", "-q");
    StringBuilder longFile = new StringBuilder();
    for (int i = 1; i <= 40; i++) {
      longFile.append("line ").append(i).append('\n');
    }
    write("src/Long.java", longFile.toString());
    write("src/Old.java", "class Old {\n  int a;\n  int b;\n  int c;\n  int d;\n}\n");
    write("gone.txt", "bye\n");
    Files.write(repo.resolve("logo.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 1, 2, 3});
    write("tail.txt", "first\nlast");
    git("add", "-A");
    git("commit", "-q", "-m", "base");

    write(
        "src/Long.java",
        longFile.toString().replace("line 2\n", "line two\n").replace("line 38\n", ""));
    git("mv", "src/Old.java", "src/New.java");
    write("src/New.java", "class Old {\n  int a;\n  int b;\n  int c;\n  int e;\n}\n");
    Files.delete(repo.resolve("gone.txt"));
    write("added.txt", "hello\nworld\n");
    Files.write(repo.resolve("logo.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 0, 9, 9, 9});
    write("tail.txt", "first\nlast line");
    git("add", "-A");
    String patch = git("diff", "--cached", "-M");

    ObjectNode derived = DiffAnalysis.analyse(patch);
    Map<String, JsonNode> byPath = new HashMap<>();
    derived.path("file_changes").forEach(c -> byPath.put(c.path("path").asText(), c));

    JsonNode longChange = byPath.get("src/Long.java");
    assertEquals("modified", longChange.path("status").asText());
    assertEquals(2, longChange.path("hunks").asInt(), patch);
    assertEquals(1, longChange.path("added").asInt());
    assertEquals(2, longChange.path("removed").asInt());

    JsonNode renamed = byPath.get("src/New.java");
    assertEquals("renamed", renamed.path("status").asText());
    assertEquals("src/Old.java", renamed.path("old_path").asText());
    assertEquals(1, renamed.path("added").asInt());

    assertEquals("deleted", byPath.get("gone.txt").path("status").asText());
    assertEquals(1, byPath.get("gone.txt").path("removed").asInt());
    assertEquals("added", byPath.get("added.txt").path("status").asText());
    assertEquals(2, byPath.get("added.txt").path("added").asInt());
    assertEquals("binary", byPath.get("logo.png").path("status").asText());
    assertEquals(0, byPath.get("logo.png").path("hunks").asInt());

    JsonNode tail = byPath.get("tail.txt");
    assertEquals(1, tail.path("added").asInt(), "'\\ No newline' is not a line: " + patch);
    assertEquals(1, tail.path("removed").asInt());

    List<String> files = new ArrayList<>();
    derived.path("files").forEach(f -> files.add(f.asText()));
    assertTrue(
        files.containsAll(List.of("src/New.java", "src/Old.java", "gone.txt", "logo.png")),
        files::toString);
    assertEquals(6, derived.path("stats").path("files").asInt());
    int hunks = 0;
    for (JsonNode change : derived.path("file_changes")) {
      hunks += change.path("hunks").asInt();
    }
    assertEquals(hunks, derived.path("stats").path("hunks").asInt());
  }

  @Test
  void plainDiffUWithTimestamps() throws Exception {
    String patch =
        "--- a.txt\t2026-11-30 10:00:00.000000000 +0000\n"
            + "+++ b.txt\t2026-11-30 10:01:00.000000000 +0000\n"
            + "@@ -1,2 +1,2 @@\n-x\n+y\n z\n";
    ObjectNode derived = DiffAnalysis.analyse(patch);
    assertEquals("b.txt", derived.path("file_changes").get(0).path("path").asText());
    assertEquals(1, derived.path("stats").path("hunks").asInt());
  }

  @Test
  void truncatedHunkIsRejectedNamingTheLine() {
    SgmException e =
        assertThrows(
            SgmException.class,
            () -> DiffAnalysis.analyse("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n+b\n"));
    assertTrue(e.getMessage().contains("line 3"), e.getMessage());
    assertEquals("data.patch", e.details().get(0).field());
  }

  private void write(String path, String text) throws IOException {
    Path file = repo.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, text);
  }

  private String git(String... args) throws Exception {
    List<String> command =
        new ArrayList<>(
            List.of(
                "git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.quotepath=off"));
    command.addAll(List.of(args));
    Process p =
        new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
    return out;
  }
}
