package dev.sgm.profile.code;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Json;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.Operations;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.CommandContext;
import dev.sgm.api.spi.CommandDeclaration;
import dev.sgm.api.spi.CommandInput;
import dev.sgm.api.spi.CommandProvider;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * {@code sgm code ...}, which this profile ships: seeds the memory of a code base from git ({@code
 * import-diff}: a unified diff becomes a {@code diff} record) and from Universal Ctags ({@code
 * import-symbols}: each tag becomes a {@code symbol} record, in atomic batches, with an id made
 * from what it is, so that importing again updates rather than duplicates).
 */
public final class CodeCommands implements CommandProvider {
  /** Above this a patch goes to content storage, so the record stays well under its limit. */
  private static final int INLINE_LIMIT = 256 * 1024;

  @Override
  public CommandDeclaration command() {
    return CommandDeclaration.named("code")
        .description("Seed what is known about a code base: diffs from git, symbols from ctags.")
        .subcommand(importDiff())
        .subcommand(importSymbols())
        .group();
  }

  /** The options every import takes: where the records go and who they are from. */
  private static CommandDeclaration.Builder target(CommandDeclaration.Builder command) {
    return command
        .option(
            "--project",
            "NAME",
            "The project scope (default: SGM_PROJECT, else the git repository's or directory's"
                + " name).")
        .pairs("--scope", "More scope pairs, e.g. --scope branch=main.")
        .option("--agent", "NAME", "Who imports it (default: SGM_AGENT, else $USER).");
  }

  private static ObjectNode provenance(CommandInput input, CommandContext context, String source) {
    ObjectNode provenance = Json.object();
    provenance.put("agent", context.agent(input.option("--agent")));
    provenance.put("origin", "cli");
    provenance.put("source", source);
    return provenance;
  }

  private static CommandDeclaration importDiff() {
    return target(CommandDeclaration.named("import-diff"))
        .description(
            "Store a unified diff as a diff record: `git diff | sgm code import-diff`, or from"
                + " FILE.",
            "The server derives the files, hunks and line counts; a large patch is stored as"
                + " content and referenced.")
        .argument("FILE", "The patch file (default: standard input).", true)
        .option("--title", "TEXT", "A short title (default: the first file changed).")
        .option("--base", "REV", "The revision the diff starts from.")
        .option("--head", "REV", "The revision the diff leads to.")
        .option("--id", "ID", "The id (default: generated).")
        .repeatable("--tag", "TAG", "A tag (repeatable).")
        .body(CodeCommands::importDiff);
  }

  private static int importDiff(CommandInput input, CommandContext context) throws IOException {
    String file = input.argument(0);
    boolean stdin = file == null || file.equals("-");
    byte[] bytes;
    if (stdin) {
      if (context.interactive()) {
        throw SgmException.invalidRequest(
            "FILE", "give a patch file, or pipe one in: git diff | sgm code import-diff");
      }
      bytes = context.in().readAllBytes();
    } else {
      Path path = context.workingDirectory().resolve(file);
      if (!Files.isRegularFile(path)) {
        throw SgmException.invalidRequest("FILE", file + " is not a file");
      }
      bytes = Files.readAllBytes(path);
    }
    if (bytes.length == 0 || new String(bytes, StandardCharsets.UTF_8).isBlank()) {
      throw SgmException.invalidRequest("FILE", "the patch is empty: there is nothing to import");
    }
    ObjectNode record = Json.object();
    String id = input.option("--id");
    record.put("id", id != null ? id : MemoryRecord.newId("diff"));
    record.put("type", "diff");
    record.set("scope", context.scope(input.option("--project"), input.pairs("--scope")));
    ObjectNode data = record.putObject("data");
    if (input.option("--base") != null) {
      data.put("base", input.option("--base"));
    }
    if (input.option("--head") != null) {
      data.put("head", input.option("--head"));
    }
    if (!input.options("--tag").isEmpty()) {
      input.options("--tag").forEach(record.putArray("tags")::add);
    }
    record.set(
        "provenance",
        provenance(input, context, stdin ? "stdin" : Path.of(file).getFileName().toString()));
    SgmClient memory = context.memory();
    if (bytes.length <= INLINE_LIMIT) {
      data.put("patch", new String(bytes, StandardCharsets.UTF_8));
    } else {
      ObjectNode upload = Json.object();
      upload.put("content", new String(bytes, StandardCharsets.UTF_8));
      record.set("reference", memory.call(Operations.PUT_CONTENT, upload).path("reference"));
    }
    if (input.option("--title") != null) {
      record.put("title", input.option("--title"));
    }
    ObjectNode request = Json.object();
    request.set("record", record);
    JsonNode stored = memory.call(Operations.STORE, request);
    JsonNode storedRecord = stored.has("record") ? stored.path("record") : stored;
    JsonNode stats = storedRecord.path("data").path("stats");
    context
        .err()
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
    context.print(stored);
    return 0;
  }

  private static CommandDeclaration importSymbols() {
    return target(CommandDeclaration.named("import-symbols"))
        .description(
            "Store symbol records from a Universal Ctags JSON file, in atomic batches:",
            "  ctags -R --output-format=json --fields=+nlKSe -f tags.json src",
            "  sgm code import-symbols tags.json",
            "Each symbol's id comes from its path, line, kind and name, so importing again updates"
                + " rather than duplicates.")
        .argument("FILE", "The ctags JSON Lines file (- for standard input).", false)
        .option("--batch-size", "N", "Symbols per atomic batch (1 to 1000; default 500).", "500")
        .body(CodeCommands::importSymbols);
  }

  private static int importSymbols(CommandInput input, CommandContext context) throws IOException {
    int batchSize = batchSize(input);
    String file = input.argument(0);
    boolean stdin = file.equals("-");
    Path path = stdin ? null : context.workingDirectory().resolve(file);
    if (!stdin && !Files.isRegularFile(path)) {
      throw SgmException.invalidRequest("FILE", file + " is not a file");
    }
    long total = stdin ? -1 : countTags(path);
    ObjectNode scope = context.scope(input.option("--project"), input.pairs("--scope"));
    ObjectNode provenance =
        provenance(input, context, stdin ? "ctags" : "ctags:" + path.getFileName());
    long stored = 0;
    long skipped = 0;
    SgmClient memory = context.memory();
    try (InputStream in = stdin ? context.in() : Files.newInputStream(path);
        BufferedReader reader =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
      ArrayNode batch = Json.array();
      int lineNumber = 0;
      for (String line = reader.readLine(); line != null; line = reader.readLine()) {
        lineNumber++;
        if (line.isBlank()) {
          continue;
        }
        JsonNode tag = parseTag(line, lineNumber);
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
          storeBatch(memory, batch, stored);
          stored += batch.size();
          context.progress("symbols", stored, total);
          batch = Json.array();
        }
      }
      if (!batch.isEmpty()) {
        storeBatch(memory, batch, stored);
        stored += batch.size();
        context.progress("symbols", stored, total);
      }
    }
    context
        .err()
        .println(
            "imported "
                + stored
                + " symbols"
                + (skipped > 0
                    ? " (" + skipped + " tags without a name, kind or path skipped)"
                    : ""));
    return 0;
  }

  /** {@code --batch-size}, which a batch store's limit bounds. */
  private static int batchSize(CommandInput input) {
    int batchSize;
    try {
      batchSize = Integer.parseInt(input.option("--batch-size"));
    } catch (NumberFormatException e) {
      throw SgmException.invalidRequest(
          "--batch-size", "must be a whole number from 1 to " + BatchStoreRequest.MAX_RECORDS);
    }
    if (batchSize < 1 || batchSize > BatchStoreRequest.MAX_RECORDS) {
      throw SgmException.invalidRequest(
          "--batch-size", "must be between 1 and " + BatchStoreRequest.MAX_RECORDS);
    }
    return batchSize;
  }

  /** How many tags the file holds, read once beforehand so that progress can show a total. */
  private static long countTags(Path path) throws IOException {
    try (var lines = Files.lines(path, StandardCharsets.UTF_8)) {
      return lines
          .filter(l -> l.contains("\"_type\": \"tag\"") || l.contains("\"_type\":\"tag\""))
          .count();
    }
  }

  /** One line of ctags JSON Lines output; an error names the line when it is not JSON. */
  private static JsonNode parseTag(String line, int lineNumber) {
    try {
      return Json.parse(line);
    } catch (SgmException e) {
      throw SgmException.invalidRequest(
          "FILE line " + lineNumber,
          "is not ctags JSON (run ctags with --output-format=json): "
              + e.getMessage().replaceFirst("^body: ", ""));
    }
  }

  /** Stores one atomic batch; a failure names the record by how many were stored before. */
  private static void storeBatch(SgmClient memory, ArrayNode records, long before) {
    ObjectNode request = Json.object();
    request.set("records", records);
    try {
      memory.call(Operations.STORE_BATCH, request);
    } catch (SgmException e) {
      throw e.withFieldPrefix("after symbol " + before + ": ");
    }
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
