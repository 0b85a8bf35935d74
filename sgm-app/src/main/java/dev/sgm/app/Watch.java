package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangeStream;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.FollowedChanges;
import dev.sgm.api.Json;
import dev.sgm.api.Timestamps;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sgm watch --scope project=demo}: prints the change feed's events as they commit, one line
 * each (JSON Lines with {@code --json} or in a pipe). On the embedded store it follows the live
 * stream; against a server it follows {@code changes} from cursor to cursor, so it works over every
 * transport and never misses or repeats an event.
 */
@Command(
    name = "watch",
    mixinStandardHelpOptions = true,
    description = "Print what changes in a scope as it commits (Ctrl-C stops).")
final class Watch implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  @Option(
      names = "--scope",
      required = true,
      paramLabel = "KEY=VALUE",
      description = "The scope to watch, e.g. --scope project=demo (repeat for more pairs).")
  Map<String, String> scope = new LinkedHashMap<>();

  @Option(
      names = "--scope-mode",
      description = "exact (default), descendants, ancestors or lineage.")
  String scopeMode;

  @Option(names = "--since", description = "Resume after this cursor (an event's cursor).")
  String since;

  @Option(names = "--types", split = ",", description = "Only these record types.")
  List<String> types = new ArrayList<>();

  @Option(names = "--count", description = "Stop after this many events.")
  Integer count;

  @Option(names = "--json", description = "Print JSON Lines even on a terminal.")
  boolean json;

  @Override
  public Integer call() throws InterruptedException {
    ObjectNode request = Json.object();
    ObjectNode scopeJson = request.putObject("scope");
    scope.forEach(scopeJson::put);
    if (scopeMode != null) {
      request.put("scope_mode", scopeMode);
    }
    if (since != null) {
      request.put("since", since);
    }
    if (!types.isEmpty()) {
      types.forEach(request.putArray("types")::add);
    }
    ChangesRequest changes = ChangesRequest.fromJson(request);
    PrintWriter out = spec.commandLine().getOut();
    boolean lines = json || System.console() == null;
    int printed = 0;
    try (Backend backend = connection.open();
        ChangeStream stream = FollowedChanges.watch(backend, changes)) {
      while (count == null || printed < count) {
        for (ChangeEvent event : stream.poll(Duration.ofSeconds(1)).events()) {
          print(out, event.toJson(), lines);
          if (count != null && ++printed >= count) {
            break;
          }
        }
      }
    }
    return ExitCodes.OK;
  }

  private static void print(PrintWriter out, JsonNode event, boolean lines) {
    if (lines) {
      out.println(Json.write(event));
    } else {
      ChangeEvent e = ChangeEvent.fromJson(event);
      out.printf(
          "%s  %-8s %s  %s  (%s v%d, %s)%n",
          e.at() == null ? "-" : Timestamps.format(e.at()),
          e.kind(),
          e.scope().canonical(),
          e.id(),
          e.type(),
          e.version(),
          e.agent());
    }
    out.flush();
  }
}
