package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sgm hooks}: memory that reaches coding agents without being asked. {@code install} writes
 * an agent's hooks (the brief at session start; the session's status at its end and before a
 * compaction) and its MCP server entry into its settings, merged with what is there; {@code
 * uninstall} takes back exactly that; {@code run} is what the hooks call.
 */
@Command(
    name = "hooks",
    mixinStandardHelpOptions = true,
    description = {
      "Hook sgm into a coding agent: each session starts with the brief, may call sgm's tools, and"
          + " leaves a status of what it did.",
      "sgm hooks install claude-code|codex|cursor [--project-dir DIR] [--data DIR | --remote URL]"
    },
    subcommands = {Hooks.Install.class, Hooks.Uninstall.class, HookRun.class})
final class Hooks implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getOut());
    return ExitCodes.INVALID;
  }

  /** The options install and uninstall share. */
  abstract static class Target {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "AGENT", description = "claude-code, codex or cursor.")
    String agent;

    @Option(
        names = "--project-dir",
        paramLabel = "DIR",
        description = "The project's settings (DIR/.claude, DIR/.codex, DIR/.cursor), not yours.")
    Path projectDir;

    @Option(
        names = "--home",
        hidden = true,
        paramLabel = "DIR",
        description = "A home directory to use instead of yours, ignoring CODEX_HOME and XDG_*.")
    Path home;

    HookPlaces places() {
      return home != null ? HookPlaces.at(home) : HookPlaces.system();
    }

    /** The root command, whose fields hold the shared options. */
    Sgm shared() {
      return (Sgm) spec.root().userObject();
    }

    /** The ledger's edits, or null when there is no ledger. */
    static JsonNode ledger(Path file) {
      String text = SettingsFiles.read(file);
      return text == null ? null : SettingsFiles.parseObject(file, text).path("edits");
    }

    static void print(PrintWriter out, String heading, List<String> lines, List<String> notes) {
      out.println(heading);
      lines.forEach(line -> out.println("  " + line));
      notes.forEach(out::println);
      out.flush();
    }
  }

  /** {@code sgm hooks install AGENT}. */
  @Command(
      name = "install",
      mixinStandardHelpOptions = true,
      description = {
        "Write the agent's hooks and its MCP server entry into its settings, merged with what is"
            + " there (running it again changes nothing), and record what was added so that"
            + " uninstall takes back exactly that.",
        "The commands written run --sgm (default: this sgm) with --data or --remote (and"
            + " --token) as given here."
      })
  static final class Install extends Target implements Callable<Integer> {
    @Option(
        names = "--sgm",
        paramLabel = "PATH",
        description = "The sgm the agent runs (default: this one, bin/sgm of its installation).")
    String sgm;

    @Override
    public Integer call() {
      HookAgent which = HookAgent.named(agent, "AGENT");
      Sgm shared = shared();
      if (shared.memory) {
        throw SgmException.invalidRequest(
            "--memory", "hooks need a memory that lasts: give --data DIR or --remote URL");
      }
      if (projectDir != null && !Files.isDirectory(projectDir)) {
        throw SgmException.invalidRequest("--project-dir", "is not a directory: " + projectDir);
      }
      HookSetup setup = new HookSetup(which, projectDir, launcher(sgm), passOn(shared), places());
      AgentSettings settings = AgentSettings.of(which);
      SettingsEditor editor = new SettingsEditor(shared.token != null);
      settings.jsonFiles(setup).forEach(editor::loadJson);
      JsonNode previous = ledger(setup.ledger());
      if (previous != null) {
        editor.undo(previous);
      }
      List<String> notes = new ArrayList<>(settings.apply(setup, editor));
      List<String> lines = editor.commit();
      lines.add(writeLedger(setup, editor.ledger(), shared.token != null));
      if (!Path.of(setup.sgm()).isAbsolute()) {
        notes.add(
            0,
            "Note: the commands run \""
                + setup.sgm()
                + "\", which the agent must find on its PATH; --sgm PATH names one.");
      }
      print(spec.commandLine().getOut(), "sgm hooks install " + setup.label() + ":", lines, notes);
      return ExitCodes.OK;
    }

    /** {@code --sgm}, else the launcher this runs from, else {@code sgm} on the agent's PATH. */
    private static String launcher(String given) {
      if (given != null) {
        return Path.of(given).toAbsolutePath().normalize().toString();
      }
      String launcher = System.getProperty("sgm.launcher");
      return launcher != null && !launcher.isBlank() ? launcher : "sgm";
    }

    /** The shared options the written commands carry: where the memory is, and the token. */
    private static List<String> passOn(Sgm shared) {
      List<String> options = new ArrayList<>();
      if (shared.data != null) {
        options.addAll(List.of("--data", shared.data.toAbsolutePath().normalize().toString()));
      }
      if (shared.remote != null) {
        options.addAll(List.of("--remote", shared.remote));
      }
      if (shared.token != null) {
        options.addAll(List.of("--token", shared.token));
      }
      return options;
    }

    /** Keeps the record of what was added (none: no ledger); says what became of it. */
    private static String writeLedger(HookSetup setup, ArrayNode edits, boolean secret) {
      Path file = setup.ledger();
      if (edits.isEmpty()) {
        boolean had = Files.exists(file);
        SettingsFiles.delete(file);
        return had ? "deleted " + file + " (nothing left to record)" : "nothing added to record";
      }
      ObjectNode ledger = Json.object().put("agent", setup.agent().key());
      ledger.put("project_dir", setup.projectDir() == null ? null : setup.projectDir().toString());
      ledger.set("edits", edits);
      String text = SettingsFiles.pretty(ledger);
      if (text.equals(SettingsFiles.read(file))) {
        return "unchanged " + file + " (the record of what was added)";
      }
      SettingsFiles.write(file, text, secret);
      return "wrote " + file + " (the record of what was added, for uninstall)";
    }
  }

  /** {@code sgm hooks uninstall AGENT}. */
  @Command(
      name = "uninstall",
      mixinStandardHelpOptions = true,
      description =
          "Take back what install added to the agent's settings, as its record says: hooks, the"
              + " MCP server entry and permissions that were there before stay.")
  static final class Uninstall extends Target implements Callable<Integer> {
    @Override
    public Integer call() {
      HookAgent which = HookAgent.named(agent, "AGENT");
      if (projectDir != null) {
        projectDir = projectDir.toAbsolutePath().normalize();
      }
      HookSetup setup = new HookSetup(which, projectDir, "sgm", List.of(), places());
      PrintWriter out = spec.commandLine().getOut();
      JsonNode edits = ledger(setup.ledger());
      if (edits == null) {
        out.println(
            "sgm hooks uninstall "
                + setup.label()
                + ": nothing to remove (no record of an install in "
                + setup.ledger()
                + ").");
        out.flush();
        return ExitCodes.OK;
      }
      SettingsEditor editor = new SettingsEditor(false);
      editor.undo(edits);
      List<String> lines = editor.commit();
      SettingsFiles.delete(setup.ledger());
      lines.add("deleted " + setup.ledger() + " (the record of what was added)");
      print(out, "sgm hooks uninstall " + setup.label() + ":", lines, List.of());
      return ExitCodes.OK;
    }
  }
}
