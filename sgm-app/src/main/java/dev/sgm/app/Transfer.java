package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmException;
import dev.sgm.core.MemoryArchive;
import dev.sgm.core.SgmRuntime;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Export and import as JSON Lines: a scope's records, one a line (format 1, through any backend),
 * or with {@code --all} the whole memory exactly as stored (format 2, {@link MemoryArchive}: every
 * scope, hidden rows, the version log, snapshots and content), which {@code import} recognises by
 * its header and copies into an empty storage.
 */
final class Transfer {
  private Transfer() {}

  /**
   * A progress bar on standard error, drawn only when it is a terminal; a negative total draws a
   * count instead. One made {@link #alsoWhenPiped} prints a line every few seconds when standard
   * error is not a terminal, for long copies run from scripts.
   */
  static final class Progress {
    private final PrintWriter err;
    private final String label;
    private final boolean visible = System.console() != null;
    private boolean piped;
    private long lastDrawn;
    private String unit = "lines";

    Progress(PrintWriter err, String label) {
      this.err = err;
      this.label = label;
    }

    /** What is counted, e.g. {@code records}; lines by default. */
    Progress counting(String unit) {
      this.unit = unit;
      return this;
    }

    Progress alsoWhenPiped() {
      piped = !visible;
      lastDrawn = System.nanoTime();
      return this;
    }

    void update(long done, long total) {
      long now = System.nanoTime();
      if (piped) {
        if (now - lastDrawn >= 5_000_000_000L) {
          lastDrawn = now;
          err.println(label + ": " + done + (total >= 0 ? "/" + total : "") + " " + unit);
          err.flush();
        }
        return;
      }
      if (!visible || (now - lastDrawn < 100_000_000L && (total < 0 || done < total))) {
        return;
      }
      lastDrawn = now;
      if (total < 0) {
        err.printf("\r%s %d %s", label, done, unit);
        err.flush();
        return;
      }
      int width = 30;
      int filled = total <= 0 ? 0 : (int) Math.min(width, width * done / total);
      err.printf(
          "\r%s [%s%s] %d/%d", label, "#".repeat(filled), ".".repeat(width - filled), done, total);
      err.flush();
    }

    void finish() {
      if (visible) {
        err.println();
      }
    }
  }

  @Command(
      name = "export",
      mixinStandardHelpOptions = true,
      description = {
        "Write a scope's records as JSON Lines (to standard output or --out).",
        "With --all, the whole memory exactly as stored: every scope, deleted records, every"
            + " version, snapshots and content, for `sgm import` into another storage."
      })
  static final class Export implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;

    @Option(
        names = "--all",
        description =
            "Everything the data directory's storage keeps, exactly (an archive; not with"
                + " --scope or --remote).")
    boolean all;

    @Option(
        names = "--scope",
        paramLabel = "KEY=VALUE",
        description = "The scope, one pair per option.")
    Map<String, String> scope = new LinkedHashMap<>();

    @Option(names = "--descendants", description = "Include every narrower scope.")
    boolean descendants;

    @Option(
        names = "--out",
        paramLabel = "FILE",
        description = "Write to FILE (replaced when complete).")
    Path out;

    @Override
    public Integer call() throws IOException {
      if (all) {
        return exportAll();
      }
      ObjectNode query = Json.object();
      query.set("scope", JsonIo.scope(scope, "--scope"));
      if (descendants) {
        query.put("scope_mode", "descendants");
      }
      // Oldest first, an order that updates made meanwhile do not reshuffle.
      query.put("order_by", "created_at");
      query.put("order", "asc");
      query.put("limit", 1000);
      Path partial = out == null ? null : out.resolveSibling(out.getFileName() + ".partial");
      long written = 0;
      Progress progress = new Progress(spec.commandLine().getErr(), "export");
      try (Backend backend = connection.open();
          Writer writer =
              partial == null
                  ? new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))
                  : Files.newBufferedWriter(partial, StandardCharsets.UTF_8)) {
        String cursor = null;
        do {
          if (cursor != null) {
            query.put("cursor", cursor);
          }
          JsonNode page = backend.call(Operations.RETRIEVE, query);
          for (JsonNode record : page.path("records")) {
            writer.write(Json.write(record));
            writer.write('\n');
            written++;
          }
          progress.update(written, page.path("total").asLong());
          cursor = page.hasNonNull("next_cursor") ? page.path("next_cursor").asText() : null;
        } while (cursor != null);
        writer.flush();
      }
      progress.finish();
      if (partial != null) {
        Files.move(
            partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        spec.commandLine().getErr().println("exported " + written + " records to " + out);
      }
      return ExitCodes.OK;
    }

    private int exportAll() throws IOException {
      if (connection.remote() != null || !scope.isEmpty() || descendants) {
        throw SgmException.invalidRequest(
            "--all",
            "copies a storage this process opens itself: without --remote, --scope or"
                + " --descendants");
      }
      PrintWriter err = spec.commandLine().getErr();
      Path partial = out == null ? null : out.resolveSibling(out.getFileName() + ".partial");
      Progress progress = new Progress(err, "export").alsoWhenPiped();
      MemoryArchive.Counts counts;
      try (SgmRuntime sgm = Sgm.openRuntime(connection.config());
          Writer writer =
              partial == null
                  ? new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))
                  : Files.newBufferedWriter(partial, StandardCharsets.UTF_8)) {
        counts = sgm.exportArchive(writer, progress::update);
        writer.flush();
      }
      progress.finish();
      if (partial != null) {
        Files.move(
            partial, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      }
      err.println("exported " + describe(counts) + (out == null ? "" : " to " + out));
      return ExitCodes.OK;
    }
  }

  static String describe(MemoryArchive.Counts counts) {
    return counts.rows()
        + " records, "
        + counts.versions()
        + " versions, "
        + counts.snapshots()
        + " snapshots and "
        + counts.contents()
        + " contents";
  }

  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
      description = {
        "Store the records of a JSON Lines file, in atomic batches.",
        "An interrupted import resumes where it stopped when run again; records already stored are"
            + " recognised and not duplicated.",
        "A file written by `export --all` is copied exactly (versions, times, deleted records,"
            + " snapshots, content) into the storage this process opens, which must be empty."
      })
  static final class Import implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The JSON Lines file (as written by export).")
    Path file;

    @Option(
        names = "--batch-size",
        defaultValue = "500",
        description = "Records per atomic batch (1 to 1000; default ${DEFAULT-VALUE}).")
    int batchSize;

    @Override
    public Integer call() throws IOException {
      Backend.checkBatchSize(batchSize);
      if (!Files.isRegularFile(file)) {
        throw SgmException.invalidRequest("FILE", file + " is not a file");
      }
      String first;
      try (BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        first = reader.readLine();
      }
      if (first != null && MemoryArchive.isArchive(first)) {
        return importAll();
      }
      long total;
      try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
        total = lines.filter(l -> !l.isBlank()).count();
      }
      Path state = file.resolveSibling(file.getFileName() + ".import-state");
      long done = resumePoint(state, file);
      PrintWriter err = spec.commandLine().getErr();
      if (done > 0) {
        err.println("resuming after " + done + " of " + total + " records already imported");
      }
      Progress progress = new Progress(err, "import");
      try (Backend backend = connection.open();
          BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        long seen = 0;
        int lineNumber = 0;
        ArrayNode batch = Json.array();
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
          lineNumber++;
          if (line.isBlank()) {
            continue;
          }
          seen++;
          if (seen <= done) {
            continue;
          }
          try {
            batch.add(Json.parse(line));
          } catch (SgmException e) {
            throw SgmException.invalidRequest(
                file.getFileName() + ":" + lineNumber, e.getMessage().replaceFirst("^body: ", ""));
          }
          if (batch.size() == batchSize) {
            done = commit(backend, batch, done, state, file);
            progress.update(done, total);
            batch = Json.array();
          }
        }
        if (!batch.isEmpty()) {
          done = commit(backend, batch, done, state, file);
          progress.update(done, total);
        }
      }
      progress.finish();
      Files.deleteIfExists(state);
      err.println("imported " + done + " records from " + file);
      return ExitCodes.OK;
    }

    private int importAll() throws IOException {
      if (connection.remote() != null) {
        throw SgmException.invalidRequest(
            "--remote",
            "an archive is copied into a storage this process opens itself (-D storage=..."
                + " or --data), not through a server");
      }
      long total;
      try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
        total = lines.filter(l -> !l.isBlank()).count() - 1;
      }
      PrintWriter err = spec.commandLine().getErr();
      Progress progress = new Progress(err, "import").alsoWhenPiped();
      MemoryArchive.Counts counts;
      try (SgmRuntime sgm = Sgm.openRuntime(connection.config());
          BufferedReader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        err.println("importing into " + sgm.storageDescription());
        try (BufferedReader check = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
          sgm.checkArchive(check);
        }
        counts = sgm.importArchive(reader, total, progress::update);
      }
      progress.finish();
      err.println("imported " + describe(counts) + " from " + file);
      return ExitCodes.OK;
    }

    private static long commit(Backend backend, ArrayNode batch, long done, Path state, Path file)
        throws IOException {
      backend.storeBatch(batch, "after record " + done + ": ");
      long now = done + batch.size();
      // Written after the batch commits: a crash in between only repeats a batch, and storing the
      // same records again changes nothing.
      Path temp = state.resolveSibling(state.getFileName() + ".tmp");
      Files.writeString(temp, Files.size(file) + " " + now + "\n", StandardCharsets.UTF_8);
      Files.move(temp, state, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      return now;
    }

    /** Records already imported by an earlier, interrupted run of the same file. */
    private static long resumePoint(Path state, Path file) throws IOException {
      if (!Files.exists(state)) {
        return 0;
      }
      String[] parts = Files.readString(state, StandardCharsets.UTF_8).trim().split(" ");
      try {
        if (parts.length == 2 && Long.parseLong(parts[0]) == Files.size(file)) {
          return Long.parseLong(parts[1]);
        }
      } catch (NumberFormatException e) {
        // A damaged state file: start over, which repeats nothing harmful.
      }
      return 0;
    }
  }
}
