package dev.sgm.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Memory that reaches real coding agents unasked: {@code sgm hooks install} into the settings of
 * Claude Code and of Codex (both from npm), each run offline against a scripted stand-in of its
 * model's API (src/test/node/agent-standin.mjs) that logs every request. The first request of a
 * session carries the brief (the open handoff, the must-rule, the accepted decision) among
 * thousands of other notes and within its budget; the session's end leaves a status record; the
 * next session's first request carries what the previous one did. Claude Code's scripted model also
 * finds sgm's store tool through ToolSearch and calls it.
 */
class AgentHooksIT {
  private static final Path DIST =
      Path.of(System.getProperty("sgm.dist", "target/sgm")).toAbsolutePath();
  private static final Path NODE = Path.of("src", "test", "node").toAbsolutePath();
  private static final Path CLAUDE =
      NODE.resolve("node_modules/@anthropic-ai/claude-code-linux-x64/claude");
  private static final Path CODEX =
      NODE.resolve(
          "node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex");

  /** The brief's default budget in tokens, and the bytes it allows (a token per 3 bytes). */
  private static final int BUDGET_BYTES = 1500 * 3;

  private static final String PROJECT = "hooks-demo";
  private static final String HANDOFF = "Finish moving the build cache to the shared volume";
  private static final String MUST = "Never commit generated protobuf sources";
  private static final String DECISION = "Cache builds in the shared volume";

  @TempDir Path temp;

  private record Result(int code, String out, String err) {}

  private Result run(List<String> command, Path dir, Map<String, String> env, Duration ceiling)
      throws Exception {
    ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile());
    builder.environment().clear();
    builder.environment().putAll(env);
    Path out = Files.createTempFile(temp, "out", ".txt");
    Path err = Files.createTempFile(temp, "err", ".txt");
    Process process =
        builder
            .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
            .redirectOutput(out.toFile())
            .redirectError(err.toFile())
            .start();
    // A ceiling for a hung agent, not a target: a session here takes a few seconds.
    if (!process.waitFor(ceiling.toMillis(), TimeUnit.MILLISECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError(
          String.join(" ", command)
              + " did not end within "
              + ceiling
              + ":\n"
              + Files.readString(err));
    }
    return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
  }

  /** The environment every process here gets: a scratch home, the JDK of this test, no proxies. */
  private Map<String, String> baseEnv(Path home) {
    Map<String, String> env = new HashMap<>();
    env.put("PATH", System.getenv().getOrDefault("PATH", "/usr/bin:/bin"));
    env.put("HOME", home.toString());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    env.put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    env.put("TERM", "dumb");
    return env;
  }

  private Result sgm(Map<String, String> env, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(DIST.resolve("bin/sgm").toString()));
    command.addAll(List.of(args));
    Result result = run(command, temp, env, Duration.ofMinutes(3));
    assertEquals(0, result.code(), String.join(" ", args) + ": " + result.out() + result.err());
    return result;
  }

  private static Path agent(Path binary, String name) {
    boolean required = "1".equals(System.getenv("SGM_REQUIRE_AGENTS"));
    if (!Files.isExecutable(binary)) {
      String why =
          name
              + " is not installed at "
              + binary
              + ": npm ci --prefix sgm-distribution/src/test/node (.ci/run does)";
      if (required) {
        throw new AssertionError(why);
      }
      Assumptions.abort(why);
    }
    return binary;
  }

  private static void git(Path in, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "-C", in.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertEquals(0, process.waitFor(), out);
  }

  /** A git repository whose origin names the project, as a user's clone does. */
  private Path repository() throws Exception {
    Path repo = Files.createDirectories(temp.resolve("work").resolve("checkout"));
    git(repo, "init", "-q", "-b", "main");
    git(repo, "remote", "add", "origin", "https://example.com/team/" + PROJECT + ".git");
    return repo;
  }

  /**
   * A memory of 3,000 notes about the project beside what the brief must show: an open handoff to
   * {@code agent}, a must-rule and an accepted decision.
   */
  private Path seed(Map<String, String> env, String agent) throws Exception {
    Path data = temp.resolve("data");
    StringBuilder lines = new StringBuilder();
    for (int i = 0; i < 3000; i++) {
      ObjectNode note = record("note-" + i, "note", "bot");
      note.put("content", "Note " + i + " on the build cache and the shared volume's layout.");
      lines.append(Json.write(note)).append('\n');
    }
    ObjectNode handoff = record("handoff-cache", "handoff", "lead");
    handoff
        .putObject("data")
        .put("from_agent", "lead")
        .put("to_agent", agent)
        .put("state", "open")
        .put("summary", HANDOFF)
        .putArray("next_steps")
        .add("point CI at the volume");
    lines.append(Json.write(handoff)).append('\n');
    ObjectNode rule = record("rule-protobuf", "rule", "lead");
    rule.putObject("data").put("statement", MUST).put("severity", "must");
    lines.append(Json.write(rule)).append('\n');
    ObjectNode decision = record("decision-cache", "decision", "lead");
    decision.put("title", DECISION);
    decision.putObject("data").put("status", "accepted").put("rationale", "one copy for all");
    lines.append(Json.write(decision)).append('\n');
    Path file = temp.resolve("memory.jsonl");
    Files.writeString(file, lines);
    sgm(env, "--data", data.toString(), "import", file.toString());
    return data;
  }

  private static ObjectNode record(String id, String type, String agent) {
    ObjectNode record = Json.object().put("id", id).put("type", type);
    record.putObject("scope").put("project", PROJECT);
    record.putObject("provenance").put("agent", agent);
    return record;
  }

  /** The stand-in of the model's API, on a free loopback port, logging every request. */
  private final class StandIn implements AutoCloseable {
    final Path log;
    final Process process;
    final int port;

    StandIn(String name, Map<String, String> script) throws Exception {
      log = temp.resolve(name + "-requests.jsonl");
      Path portFile = temp.resolve(name + ".port");
      ProcessBuilder builder =
          new ProcessBuilder(
                  "node",
                  NODE.resolve("agent-standin.mjs").toString(),
                  portFile.toString(),
                  log.toString())
              .redirectErrorStream(true)
              .redirectOutput(temp.resolve(name + "-standin.log").toFile());
      builder.environment().putAll(script);
      process = builder.start();
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!Files.exists(portFile)) {
        assertTrue(process.isAlive(), "the stand-in ended: " + read(name + "-standin.log"));
        assertTrue(System.nanoTime() < deadline, "the stand-in did not listen within 60 s");
        Thread.sleep(20);
      }
      port = Integer.parseInt(Files.readString(portFile).strip());
    }

    /** The requests that asked the model for a turn of the session (they offer it tools). */
    List<JsonNode> turns(String path) throws IOException {
      List<JsonNode> turns = new ArrayList<>();
      if (Files.exists(log)) {
        for (String line : Files.readAllLines(log)) {
          JsonNode request = Json.parse(line);
          String url = request.path("url").asText();
          if (url.split("\\?")[0].endsWith(path) && request.path("body").path("tools").size() > 0) {
            turns.add(request.path("body"));
          }
        }
      }
      return turns;
    }

    @Override
    public void close() {
      process.destroy();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private String read(String name) {
    try {
      return Files.readString(temp.resolve(name));
    } catch (IOException e) {
      return "(" + e.getMessage() + ")";
    }
  }

  /** Every string in {@code json}, joined: what a request shows the model, wherever it sits. */
  private static String text(JsonNode json) {
    StringBuilder text = new StringBuilder();
    collect(json, text);
    return text.toString();
  }

  private static void collect(JsonNode json, StringBuilder text) {
    if (json.isTextual()) {
      text.append(json.asText()).append('\n');
    }
    json.forEach(child -> collect(child, text));
  }

  private static void assertCarriesTheBrief(String request) {
    assertTrue(request.contains(HANDOFF), "the open handoff: " + request);
    assertTrue(request.contains(MUST), "the must-rule: " + request);
    assertTrue(request.contains(DECISION), "the accepted decision: " + request);
  }

  /** A record, waiting for it: an agent may end before its end-of-session hook has stored. */
  private JsonNode awaitRecord(Map<String, String> env, Path data, String id) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    while (true) {
      List<String> command =
          List.of(
              DIST.resolve("bin/sgm").toString(),
              "--data",
              data.toString(),
              "read",
              "--scope",
              "project=" + PROJECT,
              "--id",
              id);
      Result read = run(command, temp, env, Duration.ofMinutes(2));
      if (read.code() == 0) {
        return Json.parse(read.out());
      }
      assertTrue(System.nanoTime() < deadline, "no record " + id + ": " + read.err());
      Thread.sleep(250);
    }
  }

  private Map<String, String> claudeEnv(Path home, int port) {
    Map<String, String> env = baseEnv(home);
    env.put("ANTHROPIC_BASE_URL", "http://127.0.0.1:" + port);
    env.put("ANTHROPIC_API_KEY", "sk-ant-offline");
    env.put("DISABLE_TELEMETRY", "1");
    env.put("DISABLE_AUTOUPDATER", "1");
    env.put("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1");
    return env;
  }

  private static List<String> claude(Path binary, String prompt) {
    return List.of(
        binary.toString(),
        "-p",
        prompt,
        "--output-format",
        "json",
        "--permission-mode",
        "acceptEdits");
  }

  /** The brief as Claude Code recorded receiving it from the SessionStart hook. */
  private static String hookContext(Path home, String session) throws IOException {
    try (Stream<Path> files = Files.walk(home.resolve(".claude/projects"))) {
      Path transcript =
          files
              .filter(file -> file.getFileName().toString().equals(session + ".jsonl"))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no transcript of session " + session));
      for (String line : Files.readAllLines(transcript)) {
        JsonNode entry = Json.parse(line);
        JsonNode attachment = entry.path("attachment");
        if (attachment.path("type").asText().equals("hook_additional_context")
            && attachment.path("hookEvent").asText().equals("SessionStart")) {
          return attachment.path("content").path(0).asText();
        }
      }
      throw new AssertionError("no SessionStart context in " + transcript);
    }
  }

  @Test
  void claudeCodeStartsWithTheBriefStoresThroughToolSearchAndLeavesItsStatus() throws Exception {
    Path claude = agent(CLAUDE, "Claude Code");
    Path home = Files.createDirectories(temp.resolve("home"));
    Map<String, String> env = baseEnv(home);
    Path repo = repository();
    Path data = seed(env, "claude-code");
    Result install =
        sgm(
            env,
            "--data",
            data.toString(),
            "hooks",
            "install",
            "claude-code",
            "--project-dir",
            repo.toString());
    assertTrue(install.out().contains(".claude/settings.local.json"), install.out());

    String store =
        "{\"record\":{\"id\":\"noted-by-the-model\",\"type\":\"note\",\"scope\":{\"project\":\""
            + PROJECT
            + "\"},\"content\":\"The model stored this through sgm's tool.\"}}";
    String session;
    try (StandIn model =
        new StandIn(
            "claude-1",
            Map.of(
                "SCRIPT",
                "store",
                "STORE_INPUT",
                store,
                "WRITE_PATH",
                repo.resolve("cache-notes.txt").toString()))) {
      Result first =
          run(
              claude(claude, "FIRST-SESSION-ASK: write the cache notes and remember them"),
              repo,
              claudeEnv(home, model.port),
              Duration.ofMinutes(5));
      assertEquals(0, first.code(), first.out() + first.err());
      JsonNode answer = Json.parse(first.out());
      assertEquals("done", answer.path("result").asText(), first.out());
      session = answer.path("session_id").asText();
      List<JsonNode> turns = model.turns("/messages");
      assertFalse(turns.isEmpty(), "no request of a turn: " + read("claude-1-requests.jsonl"));
      String firstRequest = text(turns.get(0));
      assertCarriesTheBrief(firstRequest);
      String brief = hookContext(home, session);
      assertTrue(
          brief.getBytes(StandardCharsets.UTF_8).length <= BUDGET_BYTES,
          "the brief exceeds its budget: " + brief.length() + " characters");
      assertTrue(firstRequest.contains(brief.lines().findFirst().orElseThrow()), firstRequest);
    }

    JsonNode stored = awaitRecord(env, data, "noted-by-the-model");
    assertEquals(
        "claude-code",
        stored.path("record").path("provenance").path("agent").asText(),
        stored.toString());
    JsonNode status = awaitRecord(env, data, "session-claude-code-" + session);
    assertEquals(session, status.path("record").path("provenance").path("session").asText());
    String content = status.path("record").path("content").asText();
    assertTrue(content.contains("FIRST-SESSION-ASK"), content);
    assertTrue(content.contains("cache-notes.txt"), content);

    try (StandIn model = new StandIn("claude-2", Map.of("SCRIPT", "text"))) {
      Result second =
          run(
              claude(claude, "What is next?"),
              repo,
              claudeEnv(home, model.port),
              Duration.ofMinutes(5));
      assertEquals(0, second.code(), second.out() + second.err());
      List<JsonNode> turns = model.turns("/messages");
      assertFalse(turns.isEmpty(), "no request of a turn: " + read("claude-2-requests.jsonl"));
      String firstRequest = text(turns.get(0));
      assertTrue(
          firstRequest.contains("FIRST-SESSION-ASK"), "what the last session did: " + firstRequest);
      assertCarriesTheBrief(firstRequest);
    }
    Result uninstall =
        sgm(env, "hooks", "uninstall", "claude-code", "--project-dir", repo.toString());
    assertTrue(uninstall.out().contains("deleted"), uninstall.out());
  }

  private Map<String, String> codexEnv(Path home, Path codexHome) {
    Map<String, String> env = baseEnv(home);
    env.put("CODEX_HOME", codexHome.toString());
    env.put("LOCAL_API_KEY", "offline");
    return env;
  }

  private static List<String> codex(Path binary, String prompt) {
    return List.of(binary.toString(), "exec", "--skip-git-repo-check", prompt);
  }

  /** Codex's configuration: its model served by the stand-in on {@code port}. */
  private static void configureCodex(Path codexHome, int port) throws IOException {
    Files.createDirectories(codexHome);
    Files.writeString(
        codexHome.resolve("config.toml"),
        "model = \"gpt-5\"\n"
            + "model_provider = \"local\"\n\n"
            + "[model_providers.local]\n"
            + "name = \"local\"\n"
            + "base_url = \"http://127.0.0.1:"
            + port
            + "/v1\"\n"
            + "wire_api = \"responses\"\n"
            + "env_key = \"LOCAL_API_KEY\"\n");
  }

  /** The project's status records, as the command line lists them. */
  private JsonNode statuses(Map<String, String> env, Path data) throws Exception {
    Result listed =
        sgm(
            env,
            "--data",
            data.toString(),
            "retrieve",
            "--scope",
            "project=" + PROJECT,
            "--type",
            "status",
            "--json");
    return Json.parse(listed.out()).path("records");
  }

  @Test
  void codexStartsWithTheBriefAndItsNextSessionKnowsWhatTheLastOneDid() throws Exception {
    Path codex = agent(CODEX, "Codex");
    Path home = Files.createDirectories(temp.resolve("home"));
    Path codexHome = temp.resolve("codex-home");
    Path repo = repository();
    Map<String, String> env = codexEnv(home, codexHome);
    Path data = seed(env, "codex");
    try (StandIn model = new StandIn("codex-1", Map.of("SCRIPT", "text"))) {
      configureCodex(codexHome, model.port);
      sgm(env, "--data", data.toString(), "hooks", "install", "codex");
      Result first =
          run(codex(codex, "FIRST-CODEX-ASK: tidy the cache"), repo, env, Duration.ofMinutes(5));
      assertEquals(0, first.code(), first.out() + first.err());
      List<JsonNode> turns = model.turns("/responses");
      assertFalse(turns.isEmpty(), "no request of a turn: " + read("codex-1-requests.jsonl"));
      String firstRequest = text(turns.get(0).path("input"));
      assertCarriesTheBrief(firstRequest);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
    JsonNode status = null;
    while (status == null) {
      for (JsonNode record : statuses(env, data)) {
        if (record.path("provenance").path("agent").asText().equals("codex")) {
          status = record;
        }
      }
      assertTrue(status != null || System.nanoTime() < deadline, "Codex left no status");
      if (status == null) {
        Thread.sleep(250);
      }
    }
    assertNotNull(status.path("provenance").path("session").textValue(), status.toString());
    assertTrue(status.path("content").asText().contains("FIRST-CODEX-ASK"), status.toString());

    try (StandIn model = new StandIn("codex-2", Map.of("SCRIPT", "text"))) {
      configureCodexPort(codexHome, model.port);
      Result second = run(codex(codex, "What is next?"), repo, env, Duration.ofMinutes(5));
      assertEquals(0, second.code(), second.out() + second.err());
      List<JsonNode> turns = model.turns("/responses");
      assertFalse(turns.isEmpty(), "no request of a turn: " + read("codex-2-requests.jsonl"));
      String firstRequest = text(turns.get(0).path("input"));
      assertTrue(
          firstRequest.contains("FIRST-CODEX-ASK"), "what the last session did: " + firstRequest);
    }
  }

  /** Points Codex at a stand-in on another port, keeping the rest of its configuration. */
  private static void configureCodexPort(Path codexHome, int port) throws IOException {
    Path config = codexHome.resolve("config.toml");
    String text = Files.readString(config);
    Files.writeString(
        config,
        text.replaceFirst(
            "base_url = \"http://127\\.0\\.0\\.1:\\d+/v1\"",
            "base_url = \"http://127.0.0.1:" + port + "/v1\""));
  }
}
