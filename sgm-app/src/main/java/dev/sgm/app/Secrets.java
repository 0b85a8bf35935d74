package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.Scope;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code sgm secrets}: what the memory already holds that the credential scanner would stop now
 * (records written before it, or while {@code secrets.on-detect} allowed them).
 */
@Command(
    name = "secrets",
    mixinStandardHelpOptions = true,
    description = "Find (and redact) credentials already stored.",
    subcommands = {Secrets.Scan.class})
final class Secrets {
  private Secrets() {}

  /** {@code sgm secrets scan [--fix]}: every record and, where history is kept, every version. */
  @Command(
      name = "scan",
      mixinStandardHelpOptions = true,
      description = {
        "Report the stored records holding credentials: scope, id, version, field, kind and",
        "position, never the value; the records first, then their history, then text content.",
        "With --fix, each live record is stored again redacted and old versions and deleted",
        "records holding one are rewritten in place; content kept by hash is reported, not",
        "rewritten. Exit status 1 while any found is left. Backups, exports and copies taken",
        "before keep what they held, and the database's files keep old pages until compacted."
      })
  static final class Scan implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;

    @Option(names = "--fix", description = "Redact what is found, in history too.")
    boolean fix;

    @Option(names = "--json", description = "Print the findings as one JSON array.")
    boolean json;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Transfer.Progress progress =
          new Transfer.Progress(err, "secrets scan").counting("records").alsoWhenPiped();
      ArrayNode all = Json.array();
      long records = 0;
      long versions = 0;
      long fixed = 0;
      long unfixed = 0;
      long total = -1;
      try (Backend backend = connection.open()) {
        String cursor = null;
        do {
          ObjectNode request = Json.object().put("fix", fix);
          if (cursor != null) {
            request.put("cursor", cursor);
          }
          JsonNode page = backend.call(Operations.SECRETS_SCAN, request);
          if (page.has("total_records")) {
            total = page.path("total_records").asLong();
          }
          boolean history = !page.path("phase").asText().equals("records");
          if (history) {
            versions += page.path("scanned").asLong();
          } else {
            records += page.path("scanned").asLong();
          }
          fixed += page.path("fixed").asLong();
          unfixed += page.path("unfixed").asLong();
          for (JsonNode finding : page.path("findings")) {
            all.add(finding);
            if (!json) {
              out.println(line(finding));
            }
          }
          out.flush();
          progress.update(records + versions, history ? -1 : total);
          cursor = page.path("next_cursor").textValue();
        } while (cursor != null);
      }
      progress.finish();
      if (json) {
        JsonIo.print(spec, all);
      }
      err.printf(
          "scanned %d records and %d versions or contents: %d credentials%s%n",
          records,
          versions,
          all.size(),
          all.isEmpty()
              ? ""
              : fix
                  ? "; redacted " + fixed + " records or versions, " + unfixed + " left"
                  : "; run with --fix to redact them, history included");
      err.flush();
      return unfixed == 0 ? ExitCodes.OK : ExitCodes.FAILED;
    }

    /** One finding as a line: where it is, never what it is. */
    private static String line(JsonNode finding) {
      if (finding.has("hash")) {
        return "content "
            + finding.path("hash").asText()
            + " "
            + finding.path("kind").asText()
            + " at "
            + finding.path("position").asLong();
      }
      return finding.path("in").asText()
          + " "
          + Scope.fromJson(finding.path("scope"), "scope", dev.sgm.api.ErrorCode.INTERNAL)
              .canonical()
          + "/"
          + finding.path("id").asText()
          + " v"
          + finding.path("version").asLong()
          + " "
          + finding.path("field").asText()
          + " "
          + finding.path("kind").asText()
          + " at "
          + finding.path("position").asLong();
    }
  }
}
