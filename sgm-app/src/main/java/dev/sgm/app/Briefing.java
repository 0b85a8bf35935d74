package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BriefBudget;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmException;
import dev.sgm.core.ConfigLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Fetches a brief ({@code context.brief}) for {@code sgm context} and the agents' session-start
 * hooks, which must never hold a session up: no data directory yet gives a brief saying the memory
 * is empty, and a memory that does not answer in time (a holder that hangs, a server that is down)
 * a brief saying it is unavailable. Only a request that is wrong fails.
 */
final class Briefing {
  /** The operation that writes the brief, which the collaboration profile provides. */
  static final String OPERATION = Operations.CONTEXT_BRIEF;

  /** How long a holder or server has to answer. */
  static final Duration ANSWER = Duration.ofSeconds(2);

  /** How long opening the store in this process may take, when no other process holds it. */
  static final Duration OPEN = Duration.ofSeconds(10);

  private Briefing() {}

  /**
   * The brief: the operation's answer, or, when there is none to be had, an answer of the same
   * shape whose text says why ({@code unavailable} then holds the reason).
   */
  static JsonNode fetch(Connection connection, ObjectNode request) {
    String project = request.path("scope").path("project").asText("");
    if (connection.remote() == null && !connection.memory()) {
      Path data = Path.of(connection.config().get(ConfigLoader.DATA_DIR, "."));
      if (!Files.isDirectory(data)) {
        return without(
            request,
            project,
            "The memory is empty: nothing is recorded in " + data + " yet.",
            null);
      }
    }
    Duration deadline = deadline(connection);
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    CompletableFuture<Void> closed = new CompletableFuture<>();
    Thread attempt =
        Thread.ofPlatform()
            .daemon()
            .name("sgm-brief")
            .start(
                () -> {
                  try (Backend backend = connection.open()) {
                    answer.complete(backend.call(OPERATION, request));
                  } catch (Throwable e) {
                    answer.completeExceptionally(e);
                  } finally {
                    closed.complete(null);
                  }
                });
    try {
      JsonNode brief = answer.get(deadline.toMillis(), TimeUnit.MILLISECONDS);
      // The answer is there; the store this process opened closes before the process ends.
      awaitClosed(closed);
      return brief;
    } catch (TimeoutException e) {
      // Given up: the attempt is stopped rather than left to open the store behind the answer
      // (once the holder goes, it would take the directory over for nobody).
      attempt.interrupt();
      return unavailable(request, project, "no answer within " + deadline.toSeconds() + " s");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return unavailable(request, project, "interrupted");
    } catch (ExecutionException e) {
      awaitClosed(closed);
      if (e.getCause() instanceof SgmException error && error.code() == ErrorCode.INVALID_REQUEST) {
        throw error.withFieldRenamed("budget", "--budget");
      }
      if (e.getCause() instanceof SgmException error
          && error.code() == ErrorCode.UNSUPPORTED_CAPABILITY) {
        return unavailable(request, project, "the collaboration profile is not enabled");
      }
      return unavailable(request, project, String.valueOf(e.getCause().getMessage()));
    }
  }

  /** Waits, within {@link #OPEN}, for the backend to close. */
  private static void awaitClosed(CompletableFuture<Void> closed) {
    try {
      closed.get(OPEN.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // Closing is the backend's to report; the brief is answered either way.
    }
  }

  /**
   * How long to wait: a holder or server gets {@link #ANSWER}; opening the store here, when no
   * other process holds it, gets {@link #OPEN}.
   */
  private static Duration deadline(Connection connection) {
    if (connection.remote() != null) {
      return ANSWER;
    }
    Path data = Path.of(connection.config().get(ConfigLoader.DATA_DIR, "."));
    return !connection.memory() && DirectoryHolding.heldElsewhere(data) ? ANSWER : OPEN;
  }

  private static JsonNode unavailable(ObjectNode request, String project, String reason) {
    return without(
        request,
        project,
        "Memory is unavailable ("
            + reason
            + "): work without it; `sgm context` shows it when it is back.",
        reason);
  }

  /** An answer with no records: the header, and one line saying why. */
  private static JsonNode without(
      ObjectNode request, String project, String line, String unavailable) {
    ObjectNode answer = Json.object();
    String source = request.path("project_source").asText("");
    String text =
        "# SGM brief · project "
            + project
            + (source.isEmpty() ? "" : " (" + source + ")")
            + "\n"
            + line
            + "\n";
    answer.put("text", text);
    answer.put("tokens", BriefBudget.tokens(text));
    answer.put("budget", request.path("budget").asInt(BriefBudget.DEFAULT));
    answer.set("scope", request.path("scope"));
    answer.putArray("sections");
    if (unavailable != null) {
      answer.put("unavailable", unavailable);
    }
    return answer;
  }
}
