package dev.sgm.app;

import static dev.sgm.app.CliRun.sgm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sgm context} and the project it finds from where it runs: the brief in each format, and a
 * brief (exit 0) rather than a failure when there is no memory yet or none answers.
 */
class ContextCommandTest {
  @TempDir Path dir;

  private static void git(Path in, String... args) throws Exception {
    String[] command = new String[args.length + 1];
    command[0] = "git";
    System.arraycopy(args, 0, command, 1, args.length);
    Process p =
        new ProcessBuilder(command).directory(in.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, p.waitFor(), out);
  }

  @Test
  void theProjectIsTheGitRepositorysNameWhereverInItTheCommandRuns() throws Exception {
    Path repo = Files.createDirectories(dir.resolve("checkout"));
    git(repo, "init", "-q", "-b", "feature/brief");
    Path deep = Files.createDirectories(repo.resolve("src/main"));
    WorkingProject plain = WorkingProject.of(deep, null);
    assertEquals("checkout", plain.name());
    assertEquals(WorkingProject.FROM_TOP_LEVEL, plain.source());
    assertEquals("feature/brief", plain.branch());

    git(repo, "remote", "add", "origin", "git@github.com:team/widget.git");
    WorkingProject origin = WorkingProject.of(deep, null);
    assertEquals("widget", origin.name());
    assertEquals(WorkingProject.FROM_ORIGIN, origin.source());

    Path worktree = dir.resolve("second");
    git(
        repo,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x");
    git(repo, "worktree", "add", "-q", "-b", "other", worktree.toString());
    WorkingProject fromWorktree = WorkingProject.of(worktree, null);
    assertEquals("widget", fromWorktree.name(), "a worktree's config is the repository's");
    assertEquals("other", fromWorktree.branch());

    assertEquals("pinned", WorkingProject.of(deep, "pinned").name());
    assertEquals(WorkingProject.FROM_ENVIRONMENT, WorkingProject.of(deep, "pinned").source());
    WorkingProject outside = WorkingProject.of(Files.createDirectories(dir.resolve("loose")), null);
    assertEquals(WorkingProject.FROM_DIRECTORY, outside.source());
    assertNull(outside.branch());
  }

  @Test
  void anOriginsLastPathSegmentNamesTheProject() {
    assertEquals("sgm", WorkingProject.lastSegment("git@host:team/sgm.git"));
    assertEquals("sgm", WorkingProject.lastSegment("https://host/team/sgm/"));
    assertEquals("sgm", WorkingProject.lastSegment("ssh://git@host:22/team/sgm.git"));
    assertEquals("sgm", WorkingProject.lastSegment("/srv/git/sgm"));
    assertEquals("sgm", WorkingProject.lastSegment("sgm.git"));
    assertNull(WorkingProject.lastSegment("https://host/"));
  }

  @Test
  void aMemoryNotMadeYetGivesABriefSayingItIsEmpty() {
    Path data = dir.resolve("never-made");
    CliRun run = sgm("context", "--data", data.toString(), "--project", "p");
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("The memory is empty"), run.out());
    assertFalse(Files.exists(data), "a brief makes no data directory");
  }

  @Test
  void theBriefComesInEachFormat() {
    String data = dir.resolve("data").toString();
    assertEquals(
        0,
        sgm(
                "--data",
                data,
                "store",
                "{'id':'h1','type':'handoff','scope':{'project':'p'},'provenance':{'agent':'alice'},'data':{'from_agent':'alice','state':'open','summary':'Finish the migration.'}}"
                    .replace('\'', '"'))
            .code());
    CliRun markdown = sgm("context", "--data", data, "--project", "p", "--agent", "claude");
    assertEquals(0, markdown.code(), markdown.err());
    assertTrue(markdown.out().startsWith("# SGM brief · project p · for claude"), markdown.out());
    assertTrue(markdown.out().contains("Finish the migration."), markdown.out());

    JsonNode claude =
        Json.parse(
            sgm("context", "--data", data, "--project", "p", "--format", "claude-code").out());
    assertEquals("SessionStart", claude.path("hookSpecificOutput").path("hookEventName").asText());
    assertTrue(
        claude.path("hookSpecificOutput").path("additionalContext").asText().contains("migration"));
    JsonNode codex =
        Json.parse(sgm("context", "--data", data, "--project", "p", "--format", "codex").out());
    assertEquals(1, codex.size(), "Codex refuses keys it does not know: " + codex);
    JsonNode cursor =
        Json.parse(sgm("context", "--data", data, "--project", "p", "--format", "cursor").out());
    assertTrue(cursor.path("additional_context").asText().contains("migration"), cursor.toString());
    JsonNode json =
        Json.parse(sgm("context", "--data", data, "--project", "p", "--format", "json").out());
    assertEquals("handoffs", json.path("sections").get(0).path("name").asText());
    assertTrue(json.path("tokens").asInt() <= 1500);
  }

  @Test
  void aWrongBudgetOrFormatIsInvalidInputNamingIt() {
    String data = dir.resolve("data").toString();
    for (String budget : new String[] {"99", "x", "100001"}) {
      CliRun run = sgm("context", "--data", data, "--budget", budget);
      assertEquals(ExitCodes.INVALID, run.code(), budget);
      assertTrue(run.err().contains("--budget"), run.err());
    }
    CliRun format = sgm("context", "--data", data, "--format", "yaml");
    assertEquals(ExitCodes.INVALID, format.code());
    assertTrue(format.err().contains("--format"), format.err());
  }

  @Test
  void aServerThatIsDownGivesABriefSayingMemoryIsUnavailable() {
    CliRun run = sgm("context", "--remote", "http://127.0.0.1:1", "--project", "p");
    assertEquals(0, run.code(), run.err());
    assertTrue(run.out().contains("Memory is unavailable"), run.out());
  }

  /**
   * A holder that has the directory's lock and its socket but never answers: the brief says memory
   * is unavailable, within the holder's 2 s, with exit code 0.
   */
  @Test
  void aHolderThatDoesNotAnswerGivesABriefSayingMemoryIsUnavailable() throws Exception {
    Path data = Files.createDirectories(dir.resolve("held"));
    Path socket = LocalChannel.socketPath(data.toRealPath());
    Path program = dir.resolve("Hang.java");
    Files.writeString(
        program,
        """
        import java.nio.channels.FileChannel;
        import java.nio.file.Path;
        import java.nio.file.StandardOpenOption;
        public class Hang {
          public static void main(String[] args) throws Exception {
            FileChannel lock = FileChannel.open(Path.of(args[0]),
                StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            lock.lock();
            System.out.println("locked");
            System.in.read();
          }
        }
        """);
    Process hang =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                program.toString(),
                data.resolve(LocalChannel.LOCK_FILE).toString())
            .redirectErrorStream(true)
            .start();
    try (ServerSocketChannel silent =
        ServerSocketChannel.open(java.net.StandardProtocolFamily.UNIX)) {
      silent.bind(UnixDomainSocketAddress.of(socket));
      byte[] line = new byte[7];
      assertEquals(7, hang.getInputStream().readNBytes(line, 0, 7));
      assertEquals("locked\n", new String(line, StandardCharsets.UTF_8).replace("\r", ""));
      CliRun run = sgm("context", "--data", data.toString(), "--project", "p");
      assertEquals(0, run.code(), run.err());
      assertTrue(run.out().contains("Memory is unavailable"), run.out());
      // The attempt given up on ends, rather than open the directory once the holder is gone
      // (here, while the test removes it).
      for (Thread thread : Thread.getAllStackTraces().keySet()) {
        if (thread.getName().equals("sgm-brief")) {
          thread.join(TimeUnit.SECONDS.toMillis(30));
          assertFalse(thread.isAlive(), "the given-up attempt ended");
        }
      }
    } finally {
      hang.destroy();
      hang.waitFor(10, TimeUnit.SECONDS);
      Files.deleteIfExists(socket);
    }
  }
}
