package dev.sgm.app;

import static dev.sgm.app.CliRun.sgm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the hooks run: each agent's transcript read into prompts, files and a final answer; the
 * status a session leaves (one record per session, what could not be read said in it); the brief at
 * session start in each agent's format; and an exit code of 0 whatever goes wrong.
 */
class HookRunTest {
  @TempDir Path dir;

  private static List<String> sample(String name) throws IOException {
    try (InputStream in = HookRunTest.class.getResourceAsStream("/hooks/" + name)) {
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
          .lines()
          .toList();
    }
  }

  private Path copy(String name) throws IOException {
    Path file = dir.resolve(name);
    Files.write(file, sample(name));
    return file;
  }

  private String data() {
    return dir.resolve("data").toString();
  }

  /** Runs {@code sgm hooks run AGENT EVENT} with {@code payload} as its payload. */
  private CliRun hook(String agent, String event, String payload, String... more)
      throws IOException {
    Path file = Files.createTempFile(dir, "payload", ".json");
    Files.writeString(file, payload);
    List<String> args =
        new ArrayList<>(
            List.of("hooks", "run", agent, event, "--payload", file.toString(), "--data", data()));
    args.addAll(List.of(more));
    CliRun run = sgm(args.toArray(String[]::new));
    assertEquals(0, run.code(), run.err());
    return run;
  }

  private JsonNode read(String project, String id) {
    CliRun run = sgm("read", "--data", data(), "--scope", "project=" + project, "--id", id);
    assertEquals(0, run.code(), run.err());
    return Json.parse(run.out()).path("record");
  }

  @Test
  void claudeCodesTranscriptGivesPromptsEditsAndTheFinalAnswer() throws Exception {
    SessionTranscript read =
        SessionTranscript.parse(HookAgent.CLAUDE_CODE, sample("claude-transcript.jsonl"));
    assertEquals(List.of("Rename the parser", "Now add a test for it"), read.prompts());
    assertEquals(
        List.of(
            "/work/demo/src/Parser.java",
            "/work/demo/README.md",
            "/elsewhere/notes.md",
            "/work/demo/analysis.ipynb"),
        read.files());
    assertEquals("Renamed the parser and added a test.", read.answer());
    assertEquals(List.of(), read.skipped());
  }

  @Test
  void codexsRolloutGivesPromptsPatchedFilesAndTheLastAnswer() throws Exception {
    SessionTranscript read =
        SessionTranscript.parse(HookAgent.CODEX, sample("codex-rollout.jsonl"));
    assertEquals(List.of("Fix the build", "Also update the notes"), read.prompts());
    assertEquals(
        List.of(
            "/work/demo/build.gradle",
            "/work/demo/src/Main.java",
            "/work/demo/src/App.java",
            "/work/demo/old.txt",
            "docs/notes.md"),
        read.files());
    assertEquals("The build passes now, and the notes say why.", read.answer());
  }

  @Test
  void cursorsTranscriptGivesTheUsersQueriesAndWhatItWrote() throws Exception {
    SessionTranscript read =
        SessionTranscript.parse(HookAgent.CURSOR, sample("cursor-transcript.jsonl"));
    assertEquals(List.of("Add a logo to the README", "Make it smaller"), read.prompts());
    assertEquals(List.of("/work/demo/logo.svg", "/work/demo/README.md"), read.files());
    assertEquals("Added a 16 px logo to the README.", read.answer());
  }

  @Test
  void aMalformedLineIsSkippedAndSaidTheRestIsRead() throws Exception {
    SessionTranscript read =
        SessionTranscript.parse(HookAgent.CLAUDE_CODE, sample("claude-transcript-malformed.jsonl"));
    assertEquals(List.of("1 line that is not JSON (line 7)"), read.skipped());
    assertEquals(2, read.prompts().size());
    assertEquals(4, read.files().size());
  }

  @Test
  void theSessionEndStoresOneStatusRecordPerSessionWhichACompactionStarted() throws Exception {
    Path repo = Files.createDirectories(dir.resolve("demo"));
    Path transcript = copy("claude-transcript-malformed.jsonl");
    String text = Files.readString(transcript).replace("/work/demo", repo.toString());
    Files.writeString(transcript, text);
    String payload =
        Json.write(
            Json.object()
                .put("session_id", "1d40f2c8-5b7e-4c1a-9d3e-7a1b2c3d4e5f")
                .put("transcript_path", transcript.toString())
                .put("cwd", repo.toString())
                .put("hook_event_name", "PreCompact"));
    CliRun compacting = hook("claude-code", "pre-compact", payload);
    assertTrue(
        compacting.err().contains("skipped 1 line that is not JSON (line 7)"), compacting.err());
    String id = "session-claude-code-1d40f2c8-5b7e-4c1a-9d3e-7a1b2c3d4e5f";
    assertEquals("compacting", read("demo", id).path("data").path("state").asText());

    hook("claude-code", "session-end", payload.replace("PreCompact", "SessionEnd"));
    JsonNode record = read("demo", id);
    assertEquals(2, record.path("version").asInt(), "the same record, updated");
    assertEquals("status", record.path("type").asText());
    assertEquals("{\"project\":\"demo\"}", Json.write(record.path("scope")));
    assertEquals("Session 1d40f2c8 of claude-code", record.path("title").asText());
    JsonNode provenance = record.path("provenance");
    assertEquals("claude-code", provenance.path("agent").asText());
    assertEquals("hook", provenance.path("origin").asText());
    assertEquals("1d40f2c8-5b7e-4c1a-9d3e-7a1b2c3d4e5f", provenance.path("session").asText());
    JsonNode data = record.path("data");
    assertEquals("session ended", data.path("state").asText());
    assertTrue(dev.sgm.api.Timestamps.tryParse(data.path("as_of").asText()) != null);
    assertEquals(
        "asked \"Rename the parser\"; edited 4 files: src/Parser.java, README.md,"
            + " /elsewhere/notes.md, analysis.ipynb; answered \"Renamed the parser and added a"
            + " test.\"",
        data.path("summary").asText());
    String content = record.path("content").asText();
    assertTrue(content.contains("Skipped: 1 line that is not JSON (line 7).\n"), content);
    assertTrue(
        content.contains("## Prompts (2)\n1. Rename the parser\n2. Now add a test for it\n"),
        content);
    assertTrue(
        content.contains(
            "## Files edited (4)\n- src/Parser.java\n- README.md\n- /elsewhere/notes.md\n- analysis.ipynb\n"),
        content);
    assertTrue(
        content.endsWith("## Final answer\nRenamed the parser and added a test.\n"), content);
  }

  @Test
  void aMissingTranscriptStillLeavesAStatusSayingSo() throws Exception {
    Path repo = Files.createDirectories(dir.resolve("demo"));
    Path missing = dir.resolve("gone.jsonl");
    CliRun run =
        hook(
            "codex",
            "session-end",
            "{\"session_id\":\"s 1\",\"cwd\":\""
                + repo
                + "\",\"transcript_path\":\""
                + missing
                + "\"}");
    assertTrue(run.err().contains("could not be read"), run.err());
    JsonNode record = read("demo", "session-codex-s_1");
    assertTrue(
        record.path("content").asText().contains("Skipped: the transcript " + missing),
        record.toString());
    assertEquals("nothing read from its transcript", record.path("data").path("summary").asText());
  }

  @Test
  void cursorsTranscriptIsFoundWhereItKeepsThemWhenThePayloadHasNone() throws Exception {
    Path home = dir.resolve("home");
    Path repo = Files.createDirectories(dir.resolve("my repo"));
    String slug = repo.toString().substring(1).replaceAll("[^A-Za-z0-9]", "-");
    Path folder = home.resolve(".cursor/projects").resolve(slug).resolve("agent-transcripts/c1");
    Files.createDirectories(folder);
    Files.write(folder.resolve("c1.jsonl"), sample("cursor-transcript.jsonl"));
    hook(
        "cursor",
        "session-end",
        "{\"conversation_id\":\"c1\",\"session_id\":\"c1\",\"workspace_roots\":[\""
            + repo
            + "\"],\"transcript_path\":null}",
        "--home",
        home.toString());
    JsonNode record = read("my repo", "session-cursor-c1");
    assertTrue(
        record.path("content").asText().contains("Add a logo to the README"), record.toString());
  }

  @Test
  void longSessionsAreCutToTheStatedSizeSayingHowMuch() {
    List<String> prompts = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      prompts.add("x".repeat(3000));
    }
    SessionTranscript long_ = new SessionTranscript(prompts, List.of(), "done", List.of());
    String content =
        SessionCapture.content("a", "s", Path.of("/w"), "session ended", long_, List.of());
    assertEquals(SessionCapture.MAX_CONTENT, content.length());
    String prompt = SessionCapture.truncate("x".repeat(3000), SessionCapture.MAX_PROMPT);
    assertEquals(SessionCapture.MAX_PROMPT, prompt.length());
    int kept = prompt.indexOf('\n');
    assertTrue(
        prompt.endsWith("\n[… " + (3000 - kept) + " more characters cut]"), "the cut is counted");
    assertTrue(
        content.startsWith(
            "Session s of a in /w: session ended.\n\n## Prompts (20)\n1. " + prompt + "\n2. "),
        content.substring(0, 300));
    String marker = content.substring(content.lastIndexOf('\n') + 1);
    assertTrue(marker.matches("\\[… \\d+ more characters cut\\]"), marker);
    assertEquals("x".repeat(9), SessionCapture.truncate("x".repeat(9), 9));
  }

  @Test
  void theSessionStartPrintsTheBriefInEachAgentsFormatWithTheSessionsRules() throws Exception {
    Path repo = Files.createDirectories(dir.resolve("demo"));
    String rule =
        "{'id':'r1','type':'rule','scope':{'project':'demo','session':'s1'},'provenance':{'agent':'lead'},'data':{'statement':'Only this session: no pushes.','severity':'must'}}";
    assertEquals(0, sgm("--data", data(), "store", rule.replace('\'', '"')).code());
    String payload = "{\"session_id\":\"s1\",\"cwd\":\"" + repo + "\",\"source\":\"startup\"}";

    JsonNode claude = Json.parse(hook("claude-code", "session-start", payload).out());
    String context = claude.path("hookSpecificOutput").path("additionalContext").asText();
    assertEquals("SessionStart", claude.path("hookSpecificOutput").path("hookEventName").asText());
    assertTrue(context.startsWith("# SGM brief · project demo"), context);
    assertTrue(context.contains("for claude-code"), context);
    assertTrue(context.contains("Only this session: no pushes."), context);

    JsonNode codex = Json.parse(hook("codex", "session-start", payload).out());
    assertEquals(1, codex.size(), "Codex refuses keys it does not know: " + codex);
    assertEquals(1, codex.path("hookSpecificOutput").size() - 1, codex.toString());

    String cursorPayload =
        "{\"session_id\":\"s2\",\"workspace_roots\":[\"" + repo + "\"],\"cwd\":\"/elsewhere\"}";
    JsonNode cursor = Json.parse(hook("cursor", "session-start", cursorPayload).out());
    assertEquals(1, cursor.size(), cursor.toString());
    String cursorContext = cursor.path("additional_context").asText();
    assertTrue(cursorContext.startsWith("# SGM brief · project demo"), cursorContext);
    assertFalse(cursorContext.contains("no pushes"), "another session's rule: " + cursorContext);
  }

  @Test
  void whateverGoesWrongTheExitCodeIsZero() throws Exception {
    CliRun unknown = hook("vim", "session-start", "{}");
    assertTrue(unknown.err().contains("claude-code, codex, cursor"), unknown.err());
    CliRun event = hook("codex", "lunch", "{}");
    assertTrue(event.err().contains("EVENT"), event.err());
    CliRun notJson = hook("claude-code", "session-start", "{not json");
    assertTrue(notJson.err().contains("not JSON"), notJson.err());
    assertTrue(notJson.out().contains("SessionStart"), "still a brief: " + notJson.out());
    CliRun down =
        sgm(
            "hooks",
            "run",
            "codex",
            "session-end",
            "--payload",
            dir.resolve("none.json").toString(),
            "--remote",
            "http://127.0.0.1:1");
    assertEquals(0, down.code());
    assertFalse(down.err().isEmpty());
  }
}
