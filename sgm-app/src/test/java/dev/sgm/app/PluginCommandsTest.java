package dev.sgm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.CommandDeclaration;
import dev.sgm.api.spi.CommandProvider;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** A plugin's command, declared as data, runs as one of {@code sgm}'s own. */
class PluginCommandsTest {
  private record Run(int code, String out, String err) {}

  /** {@code sgm note add TEXT}: stores a note, echoing what it was given. */
  private static final CommandProvider NOTES =
      () ->
          CommandDeclaration.named("note")
              .description("Notes, as a plugin would add them.")
              .subcommand(
                  CommandDeclaration.named("add")
                      .description("Store a note.", "A second line of help.")
                      .argument("TEXT", "What to note.", false)
                      .option("--project", "NAME", "The project.")
                      .option("--kind", "KIND", "A kind.", "plain")
                      .repeatable("--tag", "TAG", "A tag.")
                      .pairs("--scope", "More scope pairs.")
                      .flag("--echo", "Print what was given as well.")
                      .body(
                          (input, context) -> {
                            if (input.argument(0).isBlank()) {
                              throw SgmException.invalidRequest("TEXT", "must not be blank");
                            }
                            ObjectNode record = Json.object();
                            record.put("id", "n1");
                            record.put("type", "note");
                            record.set(
                                "scope",
                                context.scope(input.option("--project"), input.pairs("--scope")));
                            record.put("content", input.argument(0));
                            input.options("--tag").forEach(record.putArray("tags")::add);
                            record
                                .putObject("provenance")
                                .put("agent", context.agent(null))
                                .put("origin", "cli");
                            ObjectNode request = Json.object();
                            request.set("record", record);
                            JsonNode stored = context.memory().call(Operations.STORE, request);
                            if (input.flag("--echo")) {
                              context.err().println("kind " + input.option("--kind"));
                            }
                            context.print(stored);
                            return 0;
                          }))
              .group();

  private static Run sgm(List<CommandProvider> providers, String... args) {
    CommandLine commandLine = Sgm.commandLine();
    PluginCommands.addTo(commandLine, providers);
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    commandLine.setOut(new PrintWriter(out));
    commandLine.setErr(new PrintWriter(err));
    int code = commandLine.execute(args);
    return new Run(code, out.toString().trim(), err.toString().trim());
  }

  @Test
  void aDeclaredCommandTakesItsOptionsAndTheSharedOnesAndReachesTheMemory() {
    Run run =
        sgm(
            List.of(NOTES),
            "--memory",
            "note",
            "add",
            "ship on friday",
            "--project",
            "demo",
            "--scope",
            "branch=main",
            "--tag",
            "a",
            "--tag",
            "b",
            "--echo");
    assertEquals(0, run.code(), run.err());
    JsonNode record = Json.parse(run.out()).path("record");
    assertEquals("ship on friday", record.path("content").asText());
    assertEquals("main", record.path("scope").path("branch").asText());
    assertEquals("demo", record.path("scope").path("project").asText());
    assertEquals("[\"a\",\"b\"]", Json.write(record.path("tags")));
    assertTrue(run.err().contains("kind plain"), "the option's default: " + run.err());
  }

  @Test
  void itsErrorsHaveTheExitCodesAndHelpOfEveryCommand() {
    Run blank = sgm(List.of(NOTES), "note", "add", " ", "--memory");
    assertEquals(ExitCodes.INVALID, blank.code(), blank.err());
    assertTrue(blank.err().startsWith("sgm: invalid_request: "), blank.err());
    assertTrue(blank.err().contains("TEXT"), blank.err());

    Run missing = sgm(List.of(NOTES), "note", "add");
    assertEquals(ExitCodes.INVALID, missing.code());
    assertTrue(missing.err().contains("(see: sgm note add --help)"), missing.err());

    Run group = sgm(List.of(NOTES), "note");
    assertEquals(ExitCodes.INVALID, group.code());
    assertTrue(group.err().contains("Usage: sgm note"), group.err());

    Run help = sgm(List.of(NOTES), "note", "add", "--help");
    assertEquals(0, help.code());
    assertTrue(help.out().contains("A second line of help."), help.out());
    assertTrue(help.out().contains("--tag=TAG"), help.out());
    assertTrue(help.out().contains("--data=DIR"), "the shared options too: " + help.out());
  }

  @Test
  void aCommandNamedLikeAnotherStopsTheCommandLine() {
    CommandProvider store = () -> CommandDeclaration.named("store").body((input, context) -> 0);
    IllegalStateException builtIn =
        assertThrows(
            IllegalStateException.class,
            () -> PluginCommands.addTo(Sgm.commandLine(), List.of(store)));
    assertTrue(builtIn.getMessage().contains("two commands are named store"), builtIn.getMessage());

    IllegalStateException twice =
        assertThrows(
            IllegalStateException.class,
            () -> PluginCommands.addTo(Sgm.commandLine(), List.of(NOTES, NOTES)));
    assertTrue(twice.getMessage().contains("named note"), twice.getMessage());
  }
}
