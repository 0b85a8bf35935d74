package dev.sgm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every subcommand, on the embedded store, with good and bad input and the documented exit codes.
 */
class CliTest {
  @TempDir Path dir;

  private CliRun sgm(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.addAll(List.of("--data", dir.resolve("data").toString()));
    return CliRun.sgm(all.toArray(String[]::new));
  }

  private static final String NOTE =
      "{\"id\":\"n1\",\"type\":\"note\",\"scope\":{\"project\":\"cli\"},\"content\":\"The build uses"
          + " Maven.\",\"tags\":[\"build\"],\"provenance\":{\"agent\":\"me\"}}";

  private static void assertOneLineError(CliRun run, int code, String prefix) {
    assertEquals(code, run.code(), run.err());
    assertEquals(1, run.err().lines().count(), run.err());
    assertTrue(run.err().startsWith(prefix), run.err());
  }

  @Test
  void callWithoutAnOperationListsWhatDiscoveryDescribes() {
    CliRun listed = sgm("call");
    assertEquals(0, listed.code(), listed.err());
    assertTrue(
        listed
            .out()
            .lines()
            .anyMatch(
                l ->
                    l.startsWith("tasks.claim ")
                        && l.contains(" collaboration ")
                        && l.contains(
                            "Claims an open task for an agent; fails with conflict when another"
                                + " agent has it.")),
        listed.out());
    assertTrue(listed.out().lines().anyMatch(l -> l.startsWith("retrieve ")), listed.out());
  }

  @Test
  void storeReadRetrieveDelete() {
    CliRun stored = sgm("store", NOTE);
    assertEquals(0, stored.code(), stored.err());
    assertEquals("cli", stored.json().path("record").path("provenance").path("origin").asText());
    assertFalse(sgm("store", NOTE).json().path("changed").asBoolean(), "idempotent");
    assertEquals(
        "The build uses Maven.",
        sgm("read", "--scope", "project=cli", "--id", "n1")
            .json()
            .path("record")
            .path("content")
            .asText());
    CliRun found = sgm("retrieve", "--scope", "project=cli", "--tag", "build", "--text", "maven");
    assertEquals(1, found.json().path("total").asLong(), found.out());
    CliRun byQuery = sgm("retrieve", "{\"scope\":{\"project\":\"cli\"},\"filter\":{\"data.x\":1}}");
    assertEquals(0, byQuery.json().path("total").asLong());
    assertEquals(0, sgm("delete", "--scope", "project=cli", "--id", "n1").code());
    assertOneLineError(sgm("read", "--scope", "project=cli", "--id", "n1"), 3, "sgm: not_found: ");
  }

  @Test
  void watchPrintsWhatCommittedAfterItsCursorInOrder() {
    CliRun changes = sgm("call", "changes", "{\"scope\":{\"project\":\"cli\"}}");
    assertEquals(0, changes.code(), changes.err());
    String cursor = changes.json().path("next").asText();
    sgm("store", NOTE);
    sgm("store", NOTE.replace("n1", "n2"));
    CliRun watched =
        sgm("watch", "--scope", "project=cli", "--since", cursor, "--count", "2", "--json");
    assertEquals(0, watched.code(), watched.err());
    List<String> ids = watched.out().lines().map(l -> Json.parse(l).path("id").asText()).toList();
    assertEquals(List.of("n1", "n2"), ids, watched.out());
  }

  @Test
  void badInputGivesTheDocumentedExitCodeAndOneLine() {
    assertOneLineError(sgm("store", "{\"id\": "), 2, "sgm: invalid_request: record");
    assertOneLineError(
        sgm("store", "{\"id\":\"x\",\"type\":\"note\",\"provenance\":{\"agent\":\"a\"}}"),
        2,
        "sgm: invalid_record: scope");
    assertOneLineError(sgm("read", "--id", "x"), 2, "sgm: invalid_request: --scope");
    assertOneLineError(sgm("read", "--scope", "project=cli"), 2, "sgm: Missing required option");
    assertOneLineError(sgm("frobnicate"), 2, "sgm: unknown command 'frobnicate' (see: sgm --help)");
    assertOneLineError(
        sgm("retreive", "--scope", "project=cli"),
        2,
        "sgm: unknown command 'retreive'; did you mean retrieve?");
    assertOneLineError(sgm("no_such.operation"), 6, "sgm: unsupported_capability: ");
    assertOneLineError(
        sgm("history.versionz", "{}"),
        6,
        "sgm: unsupported_capability: operation 'history.versionz' is not offered here; did you"
            + " mean 'history.versions'?");
    sgm("store", NOTE);
    assertOneLineError(sgm("store", "--if-absent", NOTE), 4, "sgm: conflict: ");
    assertOneLineError(
        sgm("store", "@" + dir.resolve("missing.json")),
        2,
        "sgm: invalid_request: record: no such file: " + dir.resolve("missing.json"));
    assertOneLineError(
        sgm("-D", "http.prot=7500", "discover"),
        2,
        "sgm: invalid_request: unknown configuration key 'http.prot' (given as an option); did you"
            + " mean 'http.port'?");
  }

  @Test
  void batchesContentDiscoveryAndProfileOperations() throws Exception {
    Path batch = dir.resolve("batch.json");
    Files.writeString(batch, "[" + NOTE + "," + NOTE.replace("n1", "n2") + "]");
    CliRun stored = sgm("store-batch", "@" + batch);
    assertEquals(2, stored.json().path("results").size(), stored.err());
    CliRun reference = sgm("put-content", "some text");
    assertEquals(64, reference.json().path("reference").path("hash").asText().length());
    Path binary = dir.resolve("blob.bin");
    Files.write(binary, new byte[] {0, 1, 2});
    assertEquals(
        3,
        sgm("put-content", "--file", binary.toString())
            .json()
            .path("reference")
            .path("bytes")
            .asLong());
    JsonNode discovery = sgm("discover").json();
    assertTrue(discovery.path("capabilities").toString().contains("\"cli\""), discovery.toString());
    CliRun versions = sgm("history.versions", "{\"scope\":{\"project\":\"cli\"},\"id\":\"n2\"}");
    assertEquals(0, versions.code(), versions.err());
    assertEquals(1, versions.json().path("versions").size());
    CliRun viaCall =
        sgm("call", "history.versions", "{\"scope\":{\"project\":\"cli\"},\"id\":\"n2\"}");
    assertEquals(versions.json(), viaCall.json());
  }

  @Test
  void theSharedOptionsGoBeforeOrAfterTheCommand() {
    String data = dir.resolve("data").toString();
    String address = "{\"scope\":{\"project\":\"cli\"},\"id\":\"n1\"}";
    CliRun before = CliRun.sgm("--data", data, "store", NOTE);
    assertEquals(0, before.code(), before.err());
    CliRun after = CliRun.sgm("read", "--scope", "project=cli", "--id", "n1", "--data", data);
    assertEquals(
        "The build uses Maven.", after.json().path("record").path("content").asText(), after.err());
    CliRun nested = CliRun.sgm("--data", data, "token", "list");
    assertEquals(0, nested.code(), nested.err());
    // An operation by its wire name after shared options, one of them with a dotted value.
    CliRun versions =
        CliRun.sgm("-D", "profiles.disabled=code", "--data=" + data, "history.versions", address);
    assertEquals(0, versions.code(), versions.err());
    assertEquals(1, versions.json().path("versions").size(), versions.out());
    assertOneLineError(
        CliRun.sgm("-Dprofiles.disabled=history", "--data", data, "history.versions", address),
        6,
        "sgm: unsupported_capability: ");
    assertOneLineError(
        CliRun.sgm("--data", data, "history.versions", address, "-D", "profiles.disabled=history"),
        6,
        "sgm: unsupported_capability: ");
  }

  @Test
  void rememberBuildsAValidRecord() {
    CliRun remembered =
        sgm("remember", "Use Java 21", "--project", "p1", "--tag", "java", "--agent", "dev");
    assertEquals(0, remembered.code(), remembered.err());
    JsonNode record = remembered.json().path("record");
    assertTrue(record.path("id").asText().startsWith("note-"), record.toString());
    assertEquals("p1", record.path("scope").path("project").asText());
    assertEquals("dev", record.path("provenance").path("agent").asText());
    assertEquals("cli", record.path("provenance").path("origin").asText());
    assertEquals(
        1, sgm("retrieve", "--scope", "project=p1", "--tag", "java").json().path("total").asLong());
  }

  @Test
  void aQuestionInPlainWordsRecallsWhatWasRemembered() {
    assertEquals(0, sgm("remember", "The build uses Maven", "--project", "demo").code());
    assertEquals(0, sgm("remember", "We had pizza on Friday", "--project", "demo").code());
    assertEquals(0, sgm("remember", "Maven is used elsewhere too", "--project", "other").code());
    CliRun recalled = sgm("recall", "what build tool do we use", "--project", "demo");
    assertEquals(0, recalled.code(), recalled.err());
    JsonNode result = recalled.json();
    assertEquals(1, result.path("total").asLong(), result.toString());
    assertEquals("The build uses Maven", result.path("records").get(0).path("content").asText());
    assertTrue(result.path("scores").get(0).asDouble() > 0, result.toString());
    CliRun retrieved =
        sgm("retrieve", "--scope", "project=demo", "--text", "what build tool do we use");
    assertEquals(result.path("records"), retrieved.json().path("records"));
    CliRun reindexed = sgm("reindex");
    assertEquals(0, reindexed.code(), reindexed.err());
    assertTrue(reindexed.out().startsWith("reindexed 3 records"), reindexed.out());
    assertEquals(
        result.path("records"),
        sgm("recall", "what build tool do we use", "--project", "demo").json().path("records"));
  }

  @Test
  void everyCommandHasHelpAndThereIsACompletionScript() {
    for (String command :
        List.of(
            "serve",
            "discover",
            "store",
            "store-batch",
            "read",
            "retrieve",
            "delete",
            "put-content",
            "call",
            "remember",
            "recall",
            "reindex",
            "export",
            "import",
            "completion",
            "code",
            "code import-diff",
            "code import-symbols")) {
      CliRun help = CliRun.sgm((command + " --help").split(" "));
      assertEquals(0, help.code(), command);
      assertTrue(help.out().contains("Usage: sgm " + command), help.out());
    }
    assertTrue(CliRun.sgm("completion").out().contains("complete -F"), "bash completion");
  }

  @Test
  void exportThenImportGivesTheSameRecords() throws Exception {
    for (int i = 0; i < 30; i++) {
      String inSession = "\"project\":\"cli\",\"session\":\"s" + (i % 3) + "\"";
      sgm("store", NOTE.replace("n1", "r" + i).replace("\"project\":\"cli\"", inSession));
    }
    sgm("store", NOTE);
    Path file = dir.resolve("export.jsonl");
    CliRun exported =
        sgm("export", "--scope", "project=cli", "--descendants", "--out", file.toString());
    assertEquals(0, exported.code(), exported.err());
    assertEquals(31, Files.readAllLines(file).size());
    Path other = dir.resolve("other");
    CliRun imported =
        CliRun.sgm("import", file.toString(), "--batch-size", "7", "--data", other.toString());
    assertEquals(0, imported.code(), imported.err());
    assertTrue(imported.err().contains("imported 31 records"), imported.err());
    assertFalse(Files.exists(dir.resolve("export.jsonl.import-state")));
    assertEquals(contentOf(file), contentOf(export(other)));
  }

  private Path export(Path data) {
    Path file = dir.resolve("re-export-" + System.nanoTime() + ".jsonl");
    CliRun run =
        CliRun.sgm(
            "export",
            "--scope",
            "project=cli",
            "--descendants",
            "--out",
            file.toString(),
            "--data",
            data.toString());
    assertEquals(0, run.code(), run.err());
    return file;
  }

  /** The exported records without the fields a store always sets anew. */
  private static List<String> contentOf(Path file) throws Exception {
    List<String> records = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      com.fasterxml.jackson.databind.node.ObjectNode record =
          (com.fasterxml.jackson.databind.node.ObjectNode) Json.parse(line);
      record.remove("version");
      record.remove("updated_at");
      records.add(Json.write(record));
    }
    records.sort(null);
    return records;
  }

  @Test
  void anInterruptedImportResumesWithoutDuplicates() throws Exception {
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      lines.append(NOTE.replace("n1", "i" + i).replace("Maven.", "Maven " + i + ".")).append('\n');
    }
    Path file = dir.resolve("big.jsonl");
    Files.writeString(file, lines.toString());
    Path target = dir.resolve("target");
    Process child =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                Sgm.class.getName(),
                "import",
                file.toString(),
                "--batch-size",
                "10",
                "--data",
                target.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("child.log").toFile())
            .start();
    Path state = dir.resolve("big.jsonl.import-state");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(state) && child.isAlive() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    // Killed as soon as the first batches are in: on a fast machine the rest takes well under a
    // second, so waiting longer here could let the import finish.
    child.destroyForcibly();
    assertTrue(child.waitFor(30, TimeUnit.SECONDS));
    String output = Files.readString(dir.resolve("child.log"), StandardCharsets.UTF_8);
    assertFalse(output.contains("imported 3000 records"), "the import was interrupted: " + output);
    assertTrue(Files.exists(state), "progress was saved");

    CliRun resumed =
        CliRun.sgm("import", file.toString(), "--batch-size", "10", "--data", target.toString());
    assertEquals(0, resumed.code(), resumed.err());
    assertTrue(resumed.err().contains("resuming after"), resumed.err());
    CliRun all =
        CliRun.sgm(
            "retrieve", "--scope", "project=cli", "--limit", "1", "--data", target.toString());
    assertEquals(3000, all.json().path("total").asLong());
    assertEquals(idsAndContents(file, false), idsAndContents(export(target), true));
  }

  /** id=content of every record in a JSON Lines file; with {@code once}, each must be version 1. */
  private static List<String> idsAndContents(Path file, boolean once) throws Exception {
    List<String> records = new ArrayList<>();
    for (String line : Files.readAllLines(file)) {
      JsonNode record = Json.parse(line);
      records.add(record.path("id").asText() + "=" + record.path("content").asText());
      if (once) {
        assertEquals(1, record.path("version").asLong(), "stored once: " + record.path("id"));
      }
    }
    records.sort(null);
    return records;
  }
}
