package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sgm hooks run AGENT EVENT}: what the installed hooks call, with the agent's JSON payload
 * on standard input. {@code session-start} prints the brief for the payload's project in the
 * agent's hook format; {@code session-end}, {@code pre-compact} and {@code stop} store the
 * session's status, read from its transcript. It never holds the agent up or fails it: whatever
 * goes wrong is said on standard error, and the exit code is 0.
 */
@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    description = {
      "What the installed hooks run, with the agent's hook payload (JSON) on standard input.",
      "EVENT: session-start prints the brief in the agent's format; session-end, pre-compact and"
          + " stop store the session's status (its prompts, the files it edited and its final"
          + " answer, from its transcript). The exit code is always 0."
    })
final class HookRun implements Callable<Integer> {
  /** How long the payload may take to arrive: an agent writes it at once and closes the pipe. */
  static final Duration PAYLOAD_WAIT = Duration.ofSeconds(5);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  @Parameters(index = "0", paramLabel = "AGENT", description = "claude-code, codex or cursor.")
  String agentName;

  @Parameters(
      index = "1",
      paramLabel = "EVENT",
      description = "session-start, session-end, pre-compact or stop.")
  String event;

  @Option(
      names = "--agent",
      description = "Who the brief is for and the status is by (default: AGENT).")
  String agent;

  @Option(
      names = "--budget",
      paramLabel = "TOKENS",
      defaultValue = "1500",
      description = "The most tokens the brief takes (default: ${DEFAULT-VALUE}).")
  int budget;

  @Option(
      names = "--payload",
      paramLabel = "FILE",
      hidden = true,
      description = "Read the payload from FILE instead of standard input, to try a hook by hand.")
  Path payloadFile;

  @Option(
      names = "--home",
      hidden = true,
      paramLabel = "DIR",
      description = "The home directory in which to look for Cursor's transcripts.")
  Path home;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    try {
      HookAgent which = HookAgent.named(agentName, "AGENT");
      if (!HookAgent.EVENTS.contains(event)) {
        throw dev.sgm.api.SgmException.invalidRequest(
            "EVENT", "must be one of " + String.join(", ", HookAgent.EVENTS));
      }
      HookPayload payload = HookPayload.of(which, payload(err), Path.of("").toAbsolutePath());
      String who = agent != null ? agent : which.key();
      if (event.equals("session-start")) {
        sessionStart(which, who, payload);
      } else {
        capture(which, who, payload, err);
      }
    } catch (Throwable e) {
      // An agent treats some exit codes as "block" or shows them as errors: a hook of sgm's
      // must never stop a session, so failures are reported and the exit code stays 0.
      err.println("sgm hooks run " + agentName + " " + event + ": " + describe(e));
    }
    err.flush();
    return ExitCodes.OK;
  }

  private static String describe(Throwable e) {
    return e instanceof dev.sgm.api.SgmException error
        ? error.code().wireName() + ": " + error.getMessage()
        : e.getClass().getSimpleName() + ": " + e.getMessage();
  }

  /** The payload: from {@code --payload}, else standard input, waiting at most a few seconds. */
  private JsonNode payload(PrintWriter err) throws IOException {
    byte[] bytes;
    if (payloadFile != null) {
      bytes = Files.readAllBytes(payloadFile);
    } else {
      bytes = readWithin(System.in, PAYLOAD_WAIT);
      if (bytes == null) {
        err.println(
            "sgm hooks run: no payload on standard input within "
                + PAYLOAD_WAIT.toSeconds()
                + " s; going on without it");
        return Json.object();
      }
    }
    String text = new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    if (text.isBlank()) {
      return Json.object();
    }
    try {
      return Json.parse(text);
    } catch (dev.sgm.api.SgmException e) {
      err.println("sgm hooks run: the payload is not JSON (" + e.getMessage() + "); ignored");
      return Json.object();
    }
  }

  /** All of {@code in}, or null if it is not closed within {@code wait}. */
  static byte[] readWithin(InputStream in, Duration wait) {
    CompletableFuture<byte[]> read = new CompletableFuture<>();
    Thread.ofPlatform()
        .daemon()
        .name("sgm-hook-payload")
        .start(
            () -> {
              try {
                read.complete(in.readAllBytes());
              } catch (Throwable e) {
                read.completeExceptionally(e);
              }
            });
    try {
      return read.get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    } catch (Exception e) {
      return null;
    }
  }

  /** Prints the brief for the payload's project and session, as the agent reads hook output. */
  private void sessionStart(HookAgent which, String who, HookPayload payload) {
    WorkingProject here = WorkingProject.of(payload.cwd(), System.getenv("SGM_PROJECT"));
    Map<String, String> pairs = new LinkedHashMap<>();
    if (payload.session() != null) {
      // The session's own rules come with the project's: a brief's rules are its scope's and
      // those above it.
      pairs.put("session", payload.session());
    }
    ObjectNode request = Context.request(null, here, pairs, who, budget, null);
    Context.print(spec.commandLine().getOut(), which.key(), Briefing.fetch(connection, request));
  }

  /** Stores the session's status, read from its transcript. */
  private void capture(HookAgent which, String who, HookPayload payload, PrintWriter err) {
    Path transcript = payload.transcript(home != null ? HookPlaces.at(home) : HookPlaces.system());
    SessionTranscript read = SessionTranscript.read(which, transcript);
    read.skipped().forEach(skipped -> err.println("sgm hooks run: skipped " + skipped));
    String project = WorkingProject.of(payload.cwd(), System.getenv("SGM_PROJECT")).name();
    String session = payload.session() != null ? payload.session() : "unknown";
    ObjectNode record =
        SessionCapture.record(
            who, session, payload.cwd(), project, state(event), read, Instant.now());
    ObjectNode request = Json.object();
    request.set("record", record);
    try (Backend backend = connection.open()) {
      backend.call(Operations.STORE, request);
    }
  }

  static String state(String event) {
    return switch (event) {
      case "session-end" -> "session ended";
      case "pre-compact" -> "compacting";
      case "stop" -> "turn ended";
      default -> event;
    };
  }
}
