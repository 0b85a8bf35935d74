package dev.sgm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sgm code import-diff} and {@code import-symbols} on real git and ctags output. */
class CodeCommandTest {
  @TempDir Path dir;

  private CliRun sgm(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--data", dir.resolve("data").toString()));
    return CliRun.sgm(all.toArray(String[]::new));
  }

  private static String run(Path in, String... command) throws Exception {
    Process p =
        new ProcessBuilder(command).directory(in.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), String.join(" ", command) + ": " + out);
    return out;
  }

  @Test
  void importDiffStoresAGitDiffWithProvenanceAndDiffsTouchingFindsIt() throws Exception {
    Path repo = Files.createDirectories(dir.resolve("repo"));
    String[] git = {"git", "-c", "user.name=t", "-c", "user.email=t@t"};
    run(repo, "git", "init", "-q");
    Files.writeString(repo.resolve("Main.java"), "class Main {\n}\n");
    run(repo, "git", "add", "-A");
    run(repo, concat(git, "commit", "-q", "-m", "base"));
    Files.writeString(repo.resolve("Main.java"), "class Main {\n  void run() {}\n}\n");
    Files.writeString(repo.resolve("Util.java"), "class Util {}\n");
    run(repo, "git", "add", "-A");
    Path patch = dir.resolve("change.patch");
    Files.writeString(patch, run(repo, "git", "diff", "--cached"));

    CliRun imported =
        sgm(
            "code",
            "import-diff",
            patch.toString(),
            "--project",
            "demo",
            "--agent",
            "dev",
            "--base",
            "HEAD");
    assertEquals(0, imported.code(), imported.err());
    assertTrue(imported.err().contains("2 files, 2 hunks, +2 -0"), imported.err());
    JsonNode record = Json.parse(imported.out()).path("record");
    assertEquals("diff", record.path("type").asText());
    assertEquals("dev", record.path("provenance").path("agent").asText());
    assertEquals("change.patch", record.path("provenance").path("source").asText());

    CliRun touching =
        sgm(
            "call",
            "code.diffs_touching",
            "{\"scope\":{\"project\":\"demo\"},\"path\":\"Util.java\"}");
    assertEquals(0, touching.code(), touching.err());
    assertEquals(
        record.path("id").asText(),
        Json.parse(touching.out()).path("diffs").get(0).path("id").asText(),
        touching.out());

    Files.writeString(dir.resolve("broken.patch"), "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n-a\n");
    CliRun broken =
        sgm("code", "import-diff", dir.resolve("broken.patch").toString(), "--project", "demo");
    assertEquals(ExitCodes.INVALID, broken.code(), broken.err());
    assertTrue(broken.err().contains("data.patch"), broken.err());
  }

  @Test
  void importSymbolsFromCtagsOnThisProjectsSources() throws Exception {
    boolean ctags;
    try {
      ctags = new ProcessBuilder("ctags", "--version").start().waitFor() == 0;
    } catch (java.io.IOException e) {
      ctags = false;
    }
    assumeTrue(
        ctags || System.getenv("SGM_REQUIRE_CTAGS") != null,
        "Universal Ctags is not installed (.ci/run installs it)");
    Path root = Path.of("").toAbsolutePath().getParent();
    Path tags = dir.resolve("tags.json");
    run(
        root,
        "ctags",
        "-R",
        "--output-format=json",
        "--fields=+nlKSe",
        "-f",
        tags.toString(),
        "sgm-core/src/main/java",
        "sgm-app/src/main/java");

    CliRun imported =
        sgm("code", "import-symbols", tags.toString(), "--project", "sgm", "--batch-size", "200");
    assertEquals(0, imported.code(), imported.err());
    long count;
    try (var lines = Files.lines(tags)) {
      count = lines.filter(l -> l.contains("\"_type\": \"tag\"")).count();
    }
    assertTrue(
        imported.err().contains("imported " + count + " symbols"), imported.err() + " vs " + count);

    CliRun found =
        sgm(
            "call",
            "code.symbols",
            "{\"scope\":{\"project\":\"sgm\"},\"name\":\"Invocation\",\"kind\":\"class\"}");
    assertEquals(0, found.code(), found.err());
    JsonNode symbols = Json.parse(found.out()).path("symbols");
    assertEquals(1, symbols.size(), found.out());
    JsonNode data = symbols.get(0).path("data");
    assertEquals(
        "sgm-app/src/main/java/dev/sgm/app/PluginCommands.java", data.path("path").asText());
    assertEquals("PluginCommands", data.path("container").asText());
    assertEquals("Java", data.path("language").asText());
    assertTrue(
        data.path("range").path("end_line").asInt()
            > data.path("range").path("start_line").asInt());

    CliRun again = sgm("code", "import-symbols", tags.toString(), "--project", "sgm");
    assertEquals(0, again.code(), again.err());
    CliRun total = sgm("retrieve", "--scope", "project=sgm", "--type", "symbol", "--limit", "1");
    assertEquals(
        count,
        Json.parse(total.out()).path("total").asLong(),
        "importing again does not duplicate");
  }

  private static String[] concat(String[] head, String... tail) {
    List<String> all = new ArrayList<>(List.of(head));
    all.addAll(List.of(tail));
    return all.toArray(String[]::new);
  }
}
