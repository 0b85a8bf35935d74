package dev.sgm.app;

import static dev.sgm.app.CliRun.sgm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sgm hooks install} and {@code uninstall} for each agent, in a scratch home: the settings
 * are merged (the user's own keys, hooks, permissions and servers stay), a second install changes
 * not a byte, uninstall gives back what was there, and a settings file that is not JSON stops
 * everything before anything is written.
 */
class HooksInstallTest {
  private static final String SGM = "/opt/sgm/bin/sgm";

  @TempDir Path dir;

  private Path home() {
    return dir.resolve("home");
  }

  private CliRun install(String agent, String... more) {
    List<String> args =
        new ArrayList<>(
            List.of(
                "hooks",
                "install",
                agent,
                "--home",
                home().toString(),
                "--sgm",
                SGM,
                "--data",
                dir.resolve("data").toString()));
    args.addAll(List.of(more));
    CliRun run = sgm(args.toArray(String[]::new));
    assertEquals(0, run.code(), run.err());
    return run;
  }

  private CliRun uninstall(String agent, String... more) {
    List<String> args =
        new ArrayList<>(List.of("hooks", "uninstall", agent, "--home", home().toString()));
    args.addAll(List.of(more));
    CliRun run = sgm(args.toArray(String[]::new));
    assertEquals(0, run.code(), run.err());
    return run;
  }

  /** Every file under {@code root} with its text, to see what changed. */
  private static Map<String, String> files(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    if (!Files.exists(root)) {
      return files;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        files.put(root.relativize(file).toString(), Files.readString(file));
      }
    }
    return files;
  }

  private static void write(Path file, String text) throws IOException {
    Files.createDirectories(file.getParent());
    Files.writeString(file, text.replace('\'', '"'));
  }

  private static JsonNode json(Path file) throws IOException {
    return Json.parse(Files.readString(file));
  }

  private static String command(String agent, String event, Path data) {
    return SGM + " hooks run " + agent + " " + event + " --data " + data;
  }

  /** What install then uninstall must leave: the same JSON, keys in the same order. */
  private static void assertSameJson(String expected, Path file) throws IOException {
    assertEquals(Json.write(Json.parse(expected)), Json.write(json(file)), file.toString());
  }

  @Test
  void claudeCodeForTheUserMergesIntoItsSettingsAndUninstallGivesThemBack() throws Exception {
    Path settings = home().resolve(".claude/settings.json");
    Path claudeJson = home().resolve(".claude.json");
    write(
        settings,
        "{'model': 'opus', 'permissions': {'allow': ['Bash(ls)', 'mcp__sgm'], 'deny': []},"
            + " 'hooks': {'SessionStart': [{'matcher': 'startup', 'hooks': [{'type': 'command',"
            + " 'command': 'echo mine', 'timeout': 5}]}]}}");
    write(
        claudeJson,
        "{'numStartups': 3, 'mcpServers': {'other': {'type': 'stdio', 'command': 'other'}}}");
    String settingsBefore = Files.readString(settings);
    String claudeJsonBefore = Files.readString(claudeJson);

    CliRun first = install("claude-code");
    assertTrue(first.out().contains("wrote " + settings), first.out());
    assertTrue(first.out().contains("wrote " + claudeJson + ": added mcpServers.sgm"), first.out());
    JsonNode merged = json(settings);
    assertEquals("opus", merged.path("model").asText());
    JsonNode starts = merged.path("hooks").path("SessionStart");
    assertEquals("echo mine", starts.get(0).path("hooks").get(0).path("command").asText());
    assertEquals("startup|clear|compact", starts.get(1).path("matcher").asText());
    JsonNode handler = starts.get(1).path("hooks").get(0);
    assertEquals("command", handler.path("type").asText());
    assertEquals(
        command("claude-code", "session-start", dir.resolve("data")),
        handler.path("command").asText());
    assertEquals(10, handler.path("timeout").asInt());
    for (String event : List.of("SessionEnd", "PreCompact")) {
      JsonNode group = merged.path("hooks").path(event).get(0);
      assertFalse(group.has("matcher"), event);
      assertEquals(10, group.path("hooks").get(0).path("timeout").asInt(), event);
    }
    assertEquals(
        "[\"Bash(ls)\",\"mcp__sgm\"]",
        Json.write(merged.path("permissions").path("allow")),
        "a rule already there is not added twice");
    JsonNode server = json(claudeJson).path("mcpServers").path("sgm");
    assertEquals(
        "{\"type\":\"stdio\",\"command\":\""
            + SGM
            + "\",\"args\":[\"mcp\",\"--agent\","
            + "\"claude-code\",\"--data\",\""
            + dir.resolve("data")
            + "\"]}",
        Json.write(server));
    assertTrue(json(claudeJson).path("mcpServers").has("other"));

    Map<String, String> once = files(home());
    CliRun second = install("claude-code");
    assertEquals(once, files(home()), "a second install changes nothing");
    assertFalse(second.out().contains("wrote"), second.out());

    CliRun removed = uninstall("claude-code");
    assertTrue(removed.out().contains("removed"), removed.out());
    assertSameJson(settingsBefore, settings);
    assertSameJson(claudeJsonBefore, claudeJson);
    assertTrue(
        json(settings).path("permissions").path("allow").toString().contains("mcp__sgm"),
        "the user's own mcp__sgm rule stays");
    assertFalse(Files.exists(HookPlaces.at(home()).ledgers().resolve("claude-code-user.json")));
    assertTrue(uninstall("claude-code").out().contains("nothing to remove"));
  }

  @Test
  void claudeCodeForAProjectWritesItsPersonalSettingsAndMcpJsonAndRemovesWhatItMade()
      throws Exception {
    Path project = Files.createDirectories(dir.resolve("repo"));
    Path mcpJson = project.resolve(".mcp.json");
    write(mcpJson, "{'mcpServers': {'sgm': {'command': 'old-sgm'}}}");
    String mcpBefore = Files.readString(mcpJson);
    CliRun run = install("claude-code", "--project-dir", project.toString());
    assertTrue(run.out().contains("in " + project), run.out());

    JsonNode local = json(project.resolve(".claude/settings.local.json"));
    assertEquals("[\"mcp__sgm\"]", Json.write(local.path("permissions").path("allow")));
    assertEquals("[\"sgm\"]", Json.write(local.path("enabledMcpjsonServers")));
    assertEquals(3, local.path("hooks").size());
    assertEquals(SGM, json(mcpJson).path("mcpServers").path("sgm").path("command").asText());
    assertFalse(Files.exists(home().resolve(".claude")), "nothing of the user's is touched");

    uninstall("claude-code", "--project-dir", project.toString());
    assertFalse(Files.exists(project.resolve(".claude")), "the file and folder it made go");
    assertSameJson(mcpBefore, mcpJson);
  }

  @Test
  void reinstallingWithOtherOptionsReplacesItsHooksRatherThanAddingMore() throws Exception {
    install("claude-code");
    CliRun again =
        sgm(
            "hooks",
            "install",
            "claude-code",
            "--home",
            home().toString(),
            "--sgm",
            SGM,
            "--remote",
            "http://127.0.0.1:7410");
    assertEquals(0, again.code(), again.err());
    JsonNode settings = json(home().resolve(".claude/settings.json"));
    JsonNode starts = settings.path("hooks").path("SessionStart");
    assertEquals(1, starts.size(), starts.toString());
    assertTrue(
        starts
            .get(0)
            .path("hooks")
            .get(0)
            .path("command")
            .asText()
            .endsWith("session-start --remote http://127.0.0.1:7410"));
    uninstall("claude-code");
    assertEquals(Map.of(), files(home()), "uninstall removes the files the installs made");
  }

  @Test
  void codexGetsHooksTheirTrustAndItsServerInABlockOfConfigToml() throws Exception {
    Path codex = home().resolve(".codex");
    Path hooks = codex.resolve("hooks.json");
    Path config = codex.resolve("config.toml");
    write(
        hooks,
        "{'hooks': {'Stop': [{'hooks': [{'type': 'command', 'command': 'echo stop'}]}],"
            + " 'SessionStart': [{'hooks': [{'type': 'command', 'command': 'echo mine'}]}]}}");
    String tomlBefore = "model = \"gpt-5\"\n\n[projects.\"/work\"]\ntrust_level = \"trusted\"";
    Files.writeString(config, tomlBefore);
    String hooksBefore = Files.readString(hooks);

    install("codex");
    JsonNode merged = json(hooks);
    JsonNode start = merged.path("hooks").path("SessionStart").get(1);
    assertEquals("startup|clear", start.path("matcher").asText());
    assertEquals(10, start.path("hooks").get(0).path("timeout").asInt());
    JsonNode end = merged.path("hooks").path("SessionEnd").get(0);
    assertEquals(3, end.path("hooks").get(0).path("timeout").asInt(), "Codex caps SessionEnd");
    assertEquals(
        "echo stop",
        merged.path("hooks").path("Stop").get(0).path("hooks").get(0).path("command").asText());
    JsonNode stop = merged.path("hooks").path("Stop").get(1);
    assertEquals(10, stop.path("hooks").get(0).path("timeout").asInt(), "a turn's end has time");
    assertTrue(
        stop.path("hooks").get(0).path("command").asText().contains(" hooks run codex stop"));

    String toml = Files.readString(config);
    assertTrue(toml.startsWith(tomlBefore + "\n\n# >>> sgm hooks install codex >>>\n"), toml);
    assertTrue(toml.endsWith("# <<< sgm hooks install codex <<<\n"), toml);
    assertTrue(toml.contains("\n[mcp_servers.sgm]\ncommand = \"" + SGM + "\"\n"), toml);
    assertTrue(
        toml.contains(
            "args = [\"mcp\", \"--agent\", \"codex\", \"--data\", \""
                + dir.resolve("data")
                + "\"]"),
        toml);
    assertTrue(toml.contains("\n[mcp_servers.sgm.env]\n"), toml);
    String startKey = hooks + ":session_start:1:0";
    String startHash = CodexTrust.hash("session_start", start, start.path("hooks").get(0));
    assertTrue(
        toml.contains("[hooks.state.\"" + startKey + "\"]\ntrusted_hash = \"" + startHash + "\"\n"),
        toml);
    String stopHash = CodexTrust.hash("stop", stop, stop.path("hooks").get(0));
    assertTrue(
        toml.contains(
            "[hooks.state.\"" + hooks + ":stop:1:0\"]\ntrusted_hash = \"" + stopHash + "\""),
        toml);
    String endHash = CodexTrust.hash("session_end", end, end.path("hooks").get(0));
    assertTrue(
        toml.contains(
            "[hooks.state.\"" + hooks + ":session_end:0:0\"]\ntrusted_hash = \"" + endHash + "\""),
        toml);

    Map<String, String> once = files(home());
    install("codex");
    assertEquals(once, files(home()), "a second install changes nothing");

    uninstall("codex");
    assertEquals(tomlBefore, Files.readString(config), "config.toml is given back byte for byte");
    assertSameJson(hooksBefore, hooks);
  }

  @Test
  void codexLeavesAServerTheUserDefinedAndSaysSo() throws Exception {
    Path config = home().resolve(".codex/config.toml");
    String mine = "[mcp_servers.sgm]\ncommand = \"my-sgm\"\nargs = [\"mcp\"]\n";
    write(config, mine);
    CliRun run = install("codex");
    assertTrue(run.out().contains("already defines mcp_servers.sgm"), run.out());
    String toml = Files.readString(config);
    assertEquals(1, toml.split("\\[mcp_servers\\.sgm\\]", -1).length - 1, toml);
    assertTrue(toml.contains("[hooks.state."), "the hooks are still trusted: " + toml);
    uninstall("codex");
    assertEquals(mine, Files.readString(config));
  }

  @Test
  void codexForAProjectTrustsItsHooksInTheUsersConfigAndSaysTheProjectMustBeTrusted()
      throws Exception {
    Path project = Files.createDirectories(dir.resolve("repo"));
    CliRun run = install("codex", "--project-dir", project.toString());
    assertTrue(run.out().contains("only in a trusted project"), run.out());
    Path hooks = project.resolve(".codex/hooks.json");
    assertTrue(Files.exists(hooks));
    String projectToml = Files.readString(project.resolve(".codex/config.toml"));
    assertTrue(projectToml.contains("[mcp_servers.sgm]"), projectToml);
    assertFalse(projectToml.contains("hooks.state"), "Codex reads hook state from the user's");
    String userToml = Files.readString(home().resolve(".codex/config.toml"));
    assertTrue(userToml.contains("[hooks.state.\"" + hooks + ":session_start:0:0\"]"), userToml);
    assertFalse(userToml.contains("mcp_servers"), userToml);
    assertTrue(
        userToml.contains("# >>> sgm hooks install codex --project-dir " + project + " >>>"),
        userToml);

    install("codex");
    uninstall("codex", "--project-dir", project.toString());
    assertFalse(Files.exists(project.resolve(".codex")));
    String left = Files.readString(home().resolve(".codex/config.toml"));
    assertFalse(left.contains("--project-dir"), left);
    assertTrue(left.contains("[mcp_servers.sgm]"), "the user's install stays: " + left);
    uninstall("codex");
    // The project's install made config.toml, and left it to the user's when it went.
    assertEquals(Map.of(".codex/config.toml", ""), files(home()));
  }

  /** The example of Codex's hook trust hash, checked against Codex 0.169.0. */
  @Test
  void codexTrustHashMatchesCodexsOwn() {
    JsonNode group =
        Json.parse(
            "{\"hooks\":[{\"type\":\"command\",\"command\":"
                + "\"/tmp/research/agents/hooklog.sh X_Stop none\"}]}");
    assertEquals(
        "sha256:7ec95953ec04b7ea6f24028c67f95ccba4c95fdb343a36c63a5990d67e23bc27",
        CodexTrust.hash("stop", group, group.path("hooks").get(0)));
    assertEquals("session_start", CodexTrust.snake("SessionStart"));
    assertEquals("pre_compact", CodexTrust.snake("PreCompact"));
  }

  @Test
  void cursorKeepsItsVersionAndForeignEntries() throws Exception {
    Path hooks = home().resolve(".cursor/hooks.json");
    write(
        hooks,
        "{'version': 2, 'hooks': {'afterFileEdit': [{'command': 'fmt'}],"
            + " 'sessionStart': [{'command': 'echo mine'}]}}");
    String before = Files.readString(hooks);
    install("cursor");
    JsonNode merged = json(hooks);
    assertEquals(2, merged.path("version").asInt());
    assertEquals("fmt", merged.path("hooks").path("afterFileEdit").get(0).path("command").asText());
    JsonNode start = merged.path("hooks").path("sessionStart").get(1);
    assertEquals(
        command("cursor", "session-start", dir.resolve("data")), start.path("command").asText());
    assertEquals(10, start.path("timeout").asInt());
    assertEquals(
        "{\"command\":\"" + command("cursor", "session-end", dir.resolve("data")) + "\"}",
        Json.write(merged.path("hooks").path("sessionEnd").get(0)));
    assertTrue(merged.path("hooks").has("preCompact"));
    JsonNode server = json(home().resolve(".cursor/mcp.json")).path("mcpServers").path("sgm");
    assertEquals(SGM, server.path("command").asText());
    assertEquals("mcp", server.path("args").get(0).asText());

    Map<String, String> once = files(home());
    install("cursor");
    assertEquals(once, files(home()));
    uninstall("cursor");
    assertSameJson(before, hooks);
    assertFalse(Files.exists(home().resolve(".cursor/mcp.json")));
  }

  @Test
  void cursorForAProjectStartsItsHooksFileWithAVersion() throws Exception {
    Path project = Files.createDirectories(dir.resolve("repo"));
    CliRun run = install("cursor", "--project-dir", project.toString());
    assertTrue(run.out().contains("trusted workspace"), run.out());
    JsonNode hooks = json(project.resolve(".cursor/hooks.json"));
    assertEquals("version", hooks.fieldNames().next());
    assertEquals(1, hooks.path("version").asInt());
    uninstall("cursor", "--project-dir", project.toString());
    assertFalse(Files.exists(project.resolve(".cursor")));
  }

  @Test
  void aSettingsFileThatIsNotJsonIsRefusedAndNothingChanges() throws Exception {
    Path project = Files.createDirectories(dir.resolve("repo"));
    Map<String, Path> broken =
        Map.of(
            "claude-code", home().resolve(".claude/settings.json"),
            "codex", home().resolve(".codex/hooks.json"),
            "cursor", home().resolve(".cursor/mcp.json"));
    for (Map.Entry<String, Path> agent : broken.entrySet()) {
      write(agent.getValue(), "{'hooks': {,}");
      Map<String, String> before = files(dir);
      CliRun run =
          sgm("hooks", "install", agent.getKey(), "--home", home().toString(), "--sgm", SGM);
      assertEquals(ExitCodes.INVALID, run.code(), agent.getKey() + ": " + run.out());
      assertTrue(run.err().contains(agent.getValue().toString()), run.err());
      assertTrue(run.err().contains("nothing was changed"), run.err());
      assertEquals(before, files(dir), agent.getKey());
      Files.delete(agent.getValue());
    }
    // Uninstall refuses too, once there is something to take back from a file broken since.
    install("claude-code", "--project-dir", project.toString());
    Path local = project.resolve(".claude/settings.local.json");
    Files.writeString(local, "not json");
    CliRun run =
        sgm(
            "hooks",
            "uninstall",
            "claude-code",
            "--home",
            home().toString(),
            "--project-dir",
            project.toString());
    assertEquals(ExitCodes.INVALID, run.code(), run.out());
    assertTrue(run.err().contains(local.toString()), run.err());
    assertEquals("not json", Files.readString(local));
    assertTrue(Files.exists(project.resolve(".mcp.json")), "nothing was taken back");
  }

  @Test
  void commandsAreQuotedForTheShellAndAnUnknownAgentIsInvalid() {
    HookSetup setup =
        new HookSetup(
            HookAgent.CURSOR,
            null,
            "/opt/my sgm/bin/sgm",
            List.of("--data", "/data/it's"),
            HookPlaces.at(Path.of("/home/x")));
    assertEquals(
        "'/opt/my sgm/bin/sgm' hooks run cursor session-end --data '/data/it'\\''s'",
        setup.command("session-end"));
    CliRun run = sgm("hooks", "install", "vim", "--home", home().toString());
    assertEquals(ExitCodes.INVALID, run.code());
    assertTrue(run.err().contains("claude-code, codex, cursor"), run.err());
    CliRun memory = sgm("hooks", "install", "codex", "--memory", "--home", home().toString());
    assertEquals(ExitCodes.INVALID, memory.code());
  }
}
