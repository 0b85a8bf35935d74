package dev.sgm.transport.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.core.CoreOperations;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code sgm code ...}: seeds the code profile's memory of a repository from git and ctags. */
@Command(
    name = "code",
    mixinStandardHelpOptions = true,
    description = "Seed what is known about a code base: diffs from git, symbols from ctags.",
    subcommands = {Code.ImportDiff.class, Code.ImportSymbols.class})
final class Code implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return ExitCodes.INVALID;
  }

  /** Where the imported records go and who they are from. */
  static final class Target {
    @Option(
        names = "--project",
        description =
            "The project scope (default: SGM_PROJECT, else the current directory's name).")
    String project;

    @Option(
        names = "--scope",
        paramLabel = "KEY=VALUE",
        description = "More scope pairs, e.g. --scope branch=main.")
    Map<String, String> scope = new LinkedHashMap<>();

    @Option(names = "--agent", description = "Who imports it (default: SGM_AGENT, else $USER).")
    String agent;

    ObjectNode scope() {
      ObjectNode json = Json.object();
      json.put("project", project != null ? project : Remember.defaultProject());
      scope.forEach(json::put);
      return json;
    }

    ObjectNode provenance(String source) {
      ObjectNode provenance = Json.object();
      provenance.put("agent", agent != null ? agent : Remember.defaultAgent());
      provenance.put("origin", "cli");
      provenance.put("source", source);
      return provenance;
    }
  }

  @Command(
      name = "import-diff",
      mixinStandardHelpOptions = true,
      description = {
        "Store a unified diff as a diff record: `git diff | sgm code import-diff`, or from FILE.",
        "The server derives the files, hunks and line counts; a large patch is stored as content"
            + " and referenced."
      })
  static final class ImportDiff implements Callable<Integer> {
    /** Above this a patch goes to content storage, so the record stays well under its limit. */
    private static final int INLINE_LIMIT = 256 * 1024;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;
    @Mixin Target target;

    @Parameters(
        index = "0",
        arity = "0..1",
        paramLabel = "FILE",
        description = "The patch file (default: standard input).")
    Path file;

    @Option(names = "--title", description = "A short title (default: the first file changed).")
    String title;

    @Option(names = "--base", description = "The revision the diff starts from.")
    String base;

    @Option(names = "--head", description = "The revision the diff leads to.")
    String head;

    @Option(names = "--id", description = "The id (default: generated).")
    String id;

    @Option(names = "--tag", description = "A tag (repeatable).")
    List<String> tags = new ArrayList<>();

    @Override
    public Integer call() throws IOException {
      byte[] bytes;
      boolean stdin = file == null || file.toString().equals("-");
      if (stdin) {
        if (System.console() != null) {
          throw SgmException.invalidRequest(
              "FILE", "give a patch file, or pipe one in: git diff | sgm code import-diff");
        }
        bytes = System.in.readAllBytes();
      } else if (!Files.isRegularFile(file)) {
        throw SgmException.invalidRequest("FILE", file + " is not a file");
      } else {
        bytes = Files.readAllBytes(file);
      }
      if (bytes.length == 0 || new String(bytes, StandardCharsets.UTF_8).isBlank()) {
        throw SgmException.invalidRequest("FILE", "the patch is empty: there is nothing to import");
      }
      ObjectNode record = Json.object();
      record.put("id", id != null ? id : dev.sgm.api.MemoryRecord.newId("diff"));
      record.put("type", "diff");
      record.set("scope", target.scope());
      ObjectNode data = record.putObject("data");
      if (base != null) {
        data.put("base", base);
      }
      if (head != null) {
        data.put("head", head);
      }
      if (!tags.isEmpty()) {
        tags.forEach(record.putArray("tags")::add);
      }
      record.set("provenance", target.provenance(stdin ? "stdin" : file.getFileName().toString()));
      try (Backend backend = connection.open()) {
        if (bytes.length <= INLINE_LIMIT) {
          data.put("patch", new String(bytes, StandardCharsets.UTF_8));
        } else {
          ObjectNode upload = Json.object();
          upload.put("content", new String(bytes, StandardCharsets.UTF_8));
          record.set(
              "reference", backend.call(CoreOperations.PUT_CONTENT, upload).path("reference"));
        }
        if (title != null) {
          record.put("title", title);
        }
        ObjectNode request = Json.object();
        request.set("record", record);
        JsonNode stored = backend.call(CoreOperations.STORE, request);
        JsonNode storedRecord = stored.has("record") ? stored.path("record") : stored;
        JsonNode stats = storedRecord.path("data").path("stats");
        spec.commandLine()
            .getErr()
            .println(
                "stored diff "
                    + storedRecord.path("id").asText(record.path("id").asText())
                    + ": "
                    + stats.path("files").asInt()
                    + " files, "
                    + stats.path("hunks").asInt()
                    + " hunks, +"
                    + stats.path("added").asInt()
                    + " -"
                    + stats.path("removed").asInt());
        JsonIo.print(spec, stored);
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "import-symbols",
      mixinStandardHelpOptions = true,
      description = {
        "Store symbol records from a Universal Ctags JSON file, in atomic batches:",
        "  ctags -R --output-format=json --fields=+nlKSe -f tags.json src",
        "  sgm code import-symbols tags.json",
        "Each symbol's id comes from its path, line, kind and name, so importing again updates"
            + " rather than duplicates."
      })
  static final class ImportSymbols implements Callable<Integer> {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;
    @Mixin Connection connection;
    @Mixin Target target;

    @Parameters(
        index = "0",
        paramLabel = "FILE",
        description = "The ctags JSON Lines file (- for standard input).")
    Path file;

    @Option(
        names = "--batch-size",
        defaultValue = "500",
        description = "Symbols per atomic batch (1 to 1000; default ${DEFAULT-VALUE}).")
    int batchSize;

    @Override
    public Integer call() throws IOException {
      Backend.checkBatchSize(batchSize);
      boolean stdin = file.toString().equals("-");
      if (!stdin && !Files.isRegularFile(file)) {
        throw SgmException.invalidRequest("FILE", file + " is not a file");
      }
      long total = -1;
      if (!stdin) {
        try (var lines = Files.lines(file, StandardCharsets.UTF_8)) {
          total =
              lines
                  .filter(l -> l.contains("\"_type\": \"tag\"") || l.contains("\"_type\":\"tag\""))
                  .count();
        }
      }
      PrintWriter err = spec.commandLine().getErr();
      Transfer.Progress progress = new Transfer.Progress(err, "symbols");
      ObjectNode scope = target.scope();
      ObjectNode provenance = target.provenance(stdin ? "ctags" : "ctags:" + file.getFileName());
      long stored = 0;
      long skipped = 0;
      try (Backend backend = connection.open();
          InputStream in = stdin ? System.in : Files.newInputStream(file);
          BufferedReader reader =
              new BufferedReader(new java.io.InputStreamReader(in, StandardCharsets.UTF_8))) {
        ArrayNode batch = Json.array();
        int lineNumber = 0;
        for (String line = reader.readLine(); line != null; line = reader.readLine()) {
          lineNumber++;
          if (line.isBlank()) {
            continue;
          }
          JsonNode tag;
          try {
            tag = Json.parse(line);
          } catch (SgmException e) {
            throw SgmException.invalidRequest(
                "FILE line " + lineNumber,
                "is not ctags JSON (run ctags with --output-format=json): "
                    + e.getMessage().replaceFirst("^body: ", ""));
          }
          if (!"tag".equals(tag.path("_type").asText())) {
            continue; // pseudo-tags (!_TAG_...) describe the file, not a symbol
          }
          ObjectNode record = symbol(tag, scope, provenance);
          if (record == null) {
            skipped++;
            continue;
          }
          batch.add(record);
          if (batch.size() == batchSize) {
            backend.storeBatch(batch, "after symbol " + stored + ": ");
            stored += batch.size();
            progress.update(stored, total);
            batch = Json.array();
          }
        }
        if (!batch.isEmpty()) {
          backend.storeBatch(batch, "after symbol " + stored + ": ");
          stored += batch.size();
          progress.update(stored, total);
        }
      }
      progress.finish();
      err.println(
          "imported "
              + stored
              + " symbols"
              + (skipped > 0
                  ? " (" + skipped + " tags without a name, kind or path skipped)"
                  : ""));
      return ExitCodes.OK;
    }

    /** A symbol record from one ctags tag; null when the tag lacks what a symbol needs. */
    private static ObjectNode symbol(JsonNode tag, ObjectNode scope, ObjectNode provenance) {
      String name = tag.path("name").asText("");
      String path = tag.path("path").asText("");
      String kind = tag.path("kind").asText("");
      if (name.isBlank() || path.isBlank() || kind.isBlank()) {
        return null;
      }
      int line = tag.path("line").asInt(0);
      ObjectNode record = Json.object();
      record.put("id", "symbol-" + digest(path + "\n" + line + "\n" + kind + "\n" + name));
      record.put("type", "symbol");
      record.set("scope", scope);
      record.put("title", name);
      ObjectNode data = record.putObject("data");
      data.put("name", name);
      data.put("kind", kind);
      data.put("path", path);
      if (line > 0) {
        ObjectNode range = data.putObject("range");
        range.put("start_line", line);
        int end = tag.path("end").asInt(0);
        if (end >= line) {
          range.put("end_line", end);
        }
      }
      putText(data, "language", tag.path("language"));
      putText(data, "signature", tag.path("signature"));
      putText(data, "container", tag.path("scope"));
      record.set("provenance", provenance);
      return record;
    }

    private static void putText(ObjectNode data, String field, JsonNode value) {
      if (value.isTextual() && !value.textValue().isBlank()) {
        data.put(field, value.textValue());
      }
    }

    private static String digest(String key) {
      try {
        byte[] hash =
            MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        return HexFormat.of().formatHex(hash, 0, 12);
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is part of every JDK", e);
      }
    }
  }
}
