package dev.sgm.profile.code;

import static dev.sgm.api.spi.DataFields.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.RequestReader;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.DataFields;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordType;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The code profile (CONTRACT §7): the data schemas of symbol, code_reference and diff (a diff's
 * files, hunks and line counts are derived from its patch), and lookups of symbols, references and
 * diffs. Exact names and paths go through the store's field index; prefixes and globs narrow what
 * that finds.
 */
final class CodeProfile implements Profile {
  static final List<String> REFERENCE_KINDS = List.of("call", "import", "inherit", "use");

  /** How many records a lookup may read at most, by default; see {@link #SCAN_LIMIT}. */
  static final int DEFAULT_SCAN_LIMIT = 200_000;

  /** The configuration key bounding the records one lookup reads (a glob or prefix scans). */
  static final String SCAN_LIMIT = "code.scan.limit";

  /** Where a lookup stopped: what it kept, how many matched, and whether it read everything. */
  private record Found(List<MemoryRecord> records, long total, boolean complete) {}

  private final ProfileContext context;

  private final int scanLimit;

  CodeProfile(ProfileContext context, int scanLimit) {
    this.context = context;
    this.scanLimit = scanLimit;
  }

  @Override
  public List<String> features() {
    return List.of("symbols", "references", "diffs");
  }

  @Override
  public List<RecordType> recordTypes() {
    ObjectNode line = JsonSchemas.integer("A line number.", 1, Integer.MAX_VALUE);
    return List.of(
        new RecordType(
            "symbol",
            JsonSchemas.object()
                .description("A named thing in code, where it is defined.")
                .required("name", JsonSchemas.text(null))
                .required("kind", JsonSchemas.text("function, class, method, ..."))
                .required("path", JsonSchemas.text("The file, relative to the repository."))
                .optional("language", JsonSchemas.text(null))
                .optional("signature", JsonSchemas.text(null))
                .optional(
                    "range",
                    JsonSchemas.object()
                        .required("start_line", line)
                        .optional("end_line", line)
                        .part())
                .build()),
        new RecordType(
            "code_reference",
            JsonSchemas.object()
                .description("One place in code that refers to a symbol.")
                .required(
                    "from",
                    JsonSchemas.object()
                        .required("path", JsonSchemas.text(null))
                        .optional("line", line)
                        .optional("symbol", JsonSchemas.text(null))
                        .part())
                .required(
                    "to",
                    JsonSchemas.object()
                        .required("symbol", JsonSchemas.text(null))
                        .optional("path", JsonSchemas.text(null))
                        .part())
                .required("kind", JsonSchemas.oneOf(null, REFERENCE_KINDS))
                .build()),
        new RecordType(
            "diff",
            JsonSchemas.object()
                .description(
                    "A unified diff, inline or by a content-hash reference; files, file_changes and"
                        + " stats are derived from it.")
                .optional("patch", JsonSchemas.string("The unified diff."))
                .optional("base", JsonSchemas.text(null))
                .optional("head", JsonSchemas.text(null))
                .optional(
                    "files", JsonSchemas.strings("The paths it touches; derived when absent."))
                .build()));
  }

  @Override
  public void validate(ObjectNode record) {
    ObjectNode data = DataFields.data(record);
    switch (record.path("type").asText()) {
      case "symbol" -> {
        text(data, "name", "data.name", true);
        text(data, "kind", "data.kind", true);
        text(data, "path", "data.path", true);
        text(data, "language", "data.language", false);
        text(data, "signature", "data.signature", false);
        JsonNode range = data.get("range");
        if (range != null) {
          if (!range.isObject()
              || !range.path("start_line").canConvertToInt()
              || range.path("start_line").asInt() < 1) {
            throw SgmException.invalidRecord(
                "data.range.start_line", "must be a line number from 1");
          }
          JsonNode end = range.get("end_line");
          if (end != null
              && (!end.canConvertToInt() || end.asInt() < range.path("start_line").asInt())) {
            throw SgmException.invalidRecord(
                "data.range.end_line", "must be a line number from start_line");
          }
        }
      }
      case "code_reference" -> {
        JsonNode from = data.get("from");
        if (from == null || !from.isObject()) {
          throw SgmException.invalidRecord("data.from", "is required: {path, line?, symbol?}");
        }
        text((ObjectNode) from, "path", "data.from.path", true);
        JsonNode to = data.get("to");
        if (to == null || !to.isObject()) {
          throw SgmException.invalidRecord("data.to", "is required: {symbol, path?}");
        }
        text((ObjectNode) to, "symbol", "data.to.symbol", true);
        text(data, "kind", "data.kind", true);
        if (!REFERENCE_KINDS.contains(data.get("kind").textValue())) {
          throw SgmException.invalidRecord(
              "data.kind",
              "'" + data.get("kind").textValue() + "' is not one of " + REFERENCE_KINDS);
        }
      }
      case "diff" -> {
        patch(record, data);
        text(data, "base", "data.base", false);
        text(data, "head", "data.head", false);
      }
      default ->
          throw new IllegalStateException(
              "code does not own the type " + record.path("type").asText());
    }
  }

  /** A diff's files (unless given), per-file changes and line counts, derived from its patch. */
  @Override
  public void complete(ObjectNode record) {
    if (!record.path("type").asText().equals("diff")) {
      return;
    }
    ObjectNode data = DataFields.data(record);
    ObjectNode derived = DiffAnalysis.analyse(patch(record, data));
    if (!data.has("files")) {
      data.set("files", derived.get("files"));
    }
    data.set("file_changes", derived.get("file_changes"));
    data.set("stats", derived.get("stats"));
  }

  /**
   * The diff's patch: inline in data.patch, or the content its content-hash reference points at.
   */
  private String patch(ObjectNode record, ObjectNode data) {
    JsonNode inline = data.get("patch");
    if (inline != null) {
      if (!inline.isTextual()) {
        throw SgmException.invalidRecord("data.patch", "must be the unified diff as a string");
      }
      return inline.textValue();
    }
    JsonNode reference = record.get("reference");
    if (reference != null && "content-hash".equals(reference.path("kind").asText())) {
      StoredContent content =
          context
              .service()
              .getContent(Caller.embedded(), reference.path("hash").asText())
              .orElseThrow(
                  () ->
                      SgmException.invalidRecord(
                          "reference",
                          "the patch " + reference.path("hash").asText() + " is not held here"));
      return new String(content.bytes(), StandardCharsets.UTF_8);
    }
    throw SgmException.invalidRecord(
        "data.patch", "is required (or a content-hash reference to the patch)");
  }

  @Override
  public List<ProfileOperation> operations() {
    ObjectNode limit = JsonSchemas.integer("Most records returned.", 1, RetrieveQuery.MAX_LIMIT);
    ObjectNode glob = JsonSchemas.text("A path glob, e.g. src/**/*.java.");
    return List.of(
        ProfileOperation.named("code.symbols")
            .title("Find code symbols")
            .description("Finds symbols by name, prefix, kind, path or path glob.")
            .request(
                request()
                    .optional(
                        "scope_mode",
                        JsonSchemas.oneOf(
                            "descendants, ancestors or lineage widen the scope.",
                            List.of("exact", "descendants", "ancestors", "lineage")))
                    .optional("name", JsonSchemas.text("The exact name."))
                    .optional("prefix", JsonSchemas.text("The start of the name."))
                    .optional("kind", JsonSchemas.text("function, class, method, ..."))
                    .optional("path", JsonSchemas.text("The exact file."))
                    .optional("path_glob", glob)
                    .optional("limit", limit)
                    .build())
            .readOnly()
            .response(listingSchema("symbols", "symbol", "The symbols found, at most limit."))
            .body(this::symbols),
        ProfileOperation.named("code.references_to")
            .title("Find references to a symbol")
            .description("Lists every recorded reference to a symbol, with its location.")
            .request(
                request()
                    .required("symbol", JsonSchemas.text("The symbol referred to."))
                    .optional(
                        "path", JsonSchemas.text("Only references to the symbol of this file."))
                    .optional("limit", limit)
                    .build())
            .readOnly()
            .response(
                listingSchema(
                    "references", "code_reference", "The references found, at most limit."))
            .body(this::referencesTo),
        ProfileOperation.named("code.diffs_touching")
            .title("Find diffs touching a file")
            .description("Lists the diffs that touch a path or a path glob, newest first.")
            .request(
                request()
                    .optional("path", JsonSchemas.text("A file; give this or path_glob."))
                    .optional("path_glob", glob)
                    .optional("limit", limit)
                    .build())
            .readOnly()
            .response(
                listingSchema("diffs", "diff", "The diffs found, newest first, at most limit."))
            .body(this::diffsTouching));
  }

  private static JsonSchemas.ObjectSchema request() {
    return JsonSchemas.object()
        .additionalProperties(false)
        .required("scope", JsonSchemas.scope("The scope, e.g. {\"project\": \"myproject\"}."));
  }

  /**
   * The records found by {@code query} (all pages, up to the scan limit) that the caller sees whole
   * and that pass {@code keep}, the first {@code limit} (or the default page size) of them kept.
   */
  private Found find(
      Caller caller, RetrieveQuery.Builder query, Predicate<MemoryRecord> keep, Long limit) {
    int keepAtMost = limit == null ? RetrieveQuery.DEFAULT_LIMIT : limit.intValue();
    List<MemoryRecord> found = new ArrayList<>();
    long total = 0;
    String cursor = null;
    int scanned = 0;
    query.limit(Math.min(RetrieveQuery.MAX_LIMIT, scanLimit));
    do {
      RetrieveResult page = context.service().retrieve(caller, query.cursor(cursor).build());
      for (MemoryRecord record : page.records()) {
        // Every lookup is about a record's data, which a record above the caller's clearance
        // withholds: such a record matches none, whichever way it was asked for.
        if (!record.json().path("redacted").asBoolean(false) && keep.test(record)) {
          total++;
          if (found.size() < keepAtMost) {
            found.add(record);
          }
        }
      }
      scanned += page.records().size();
      cursor = page.nextCursor();
    } while (cursor != null && scanned < scanLimit);
    return new Found(found, total, cursor == null);
  }

  /**
   * The response: the records and how many matched; {@code complete: false} when the lookup stopped
   * at the scan limit, so {@code total} counts only what it read.
   */
  private static ObjectNode listing(String field, Found found) {
    ObjectNode response = Json.object();
    ArrayNode array = response.putArray(field);
    found.records().forEach(r -> array.add(r.view()));
    response.put("total", found.total());
    if (!found.complete()) {
      response.put("complete", false);
    }
    return response;
  }

  /**
   * The JSON Schema of a {@link #listing}: the records of {@code type} under {@code field}, each as
   * stored (or redacted, above the caller's clearance), the count and the scan limit's mark.
   */
  private static ObjectNode listingSchema(String field, String type, String description) {
    ObjectNode record = Json.object();
    record.put("description", "A " + type + " as stored.");
    record.putArray("allOf").add(JsonSchemas.ref(JsonSchemas.MEMORY_SCHEMA));
    ObjectNode properties = record.putObject("properties");
    properties.set("type", Json.object().put("const", type));
    properties.set(
        "redacted",
        Json.object()
            .put("const", true)
            .put(
                "description",
                "Present when content, data and reference are withheld from this caller."));
    record
        .putArray("required")
        .add("id")
        .add("type")
        .add("scope")
        .add("provenance")
        .add("created_at")
        .add("updated_at")
        .add("version")
        .add("schema_version");
    ObjectNode records = Json.object().put("type", "array").put("description", description);
    records.set("items", record);
    return JsonSchemas.object()
        .required(field, records)
        .required(
            "total",
            Json.object()
                .put("type", "integer")
                .put("minimum", 0)
                .put("description", "Every match the lookup read, not just those returned."))
        .optional(
            "complete",
            JsonSchemas.bool(
                "Present, and false, when the lookup stopped at the scan limit: total then counts"
                    + " only what it read."))
        .build();
  }

  private static PathMatcher glob(String pattern) {
    try {
      return FileSystems.getDefault().getPathMatcher("glob:" + pattern);
    } catch (IllegalArgumentException e) {
      throw SgmException.invalidRequest(
          "path_glob", "'" + pattern + "' is not a glob: " + e.getMessage());
    }
  }

  private static boolean matches(PathMatcher matcher, String path) {
    try {
      return matcher.matches(Path.of(path));
    } catch (RuntimeException e) {
      return false;
    }
  }

  private JsonNode symbols(Caller caller, JsonNode json) {
    RequestReader r = RequestReader.of(json);
    Scope scope = r.requireScope("scope");
    String mode = r.optionalString("scope_mode");
    String name = r.optionalString("name");
    String prefix = r.optionalString("prefix");
    String kind = r.optionalString("kind");
    String path = r.optionalString("path");
    String pathGlob = r.optionalString("path_glob");
    Long limit = r.optionalLong("limit", 1, RetrieveQuery.MAX_LIMIT);
    r.finish();
    RetrieveQuery.Builder query = RetrieveQuery.builder(scope).types(List.of("symbol"));
    if (mode != null) {
      query.scopeMode(ScopeMode.fromWireName(mode));
    }
    // One index filter, the most selective given; the rest are checked on the few rows it finds.
    // Intersecting a name's handful of rows with a kind's hundred thousand costs more than that.
    if (name != null) {
      query.filter("data.name", TextNode.valueOf(name));
    } else if (path != null) {
      query.filter("data.path", TextNode.valueOf(path));
    } else if (kind != null) {
      query.filter("data.kind", TextNode.valueOf(kind));
    }
    PathMatcher matcher = pathGlob == null ? null : glob(pathGlob);
    Predicate<MemoryRecord> keep =
        record ->
            (prefix == null || record.data().path("name").asText().startsWith(prefix))
                && (kind == null || kind.equals(record.data().path("kind").asText()))
                && (path == null || path.equals(record.data().path("path").asText()))
                && (matcher == null || matches(matcher, record.data().path("path").asText()));
    return listing("symbols", find(caller, query, keep, limit));
  }

  private JsonNode referencesTo(Caller caller, JsonNode json) {
    RequestReader r = RequestReader.of(json);
    Scope scope = r.requireScope("scope");
    String symbol = r.requireString("symbol");
    String path = r.optionalString("path");
    Long limit = r.optionalLong("limit", 1, RetrieveQuery.MAX_LIMIT);
    r.finish();
    RetrieveQuery.Builder query =
        RetrieveQuery.builder(scope)
            .types(List.of("code_reference"))
            .filter("data.to.symbol", TextNode.valueOf(symbol));
    if (path != null) {
      query.filter("data.to.path", TextNode.valueOf(path));
    }
    return listing("references", find(caller, query, record -> true, limit));
  }

  private JsonNode diffsTouching(Caller caller, JsonNode json) {
    RequestReader r = RequestReader.of(json);
    Scope scope = r.requireScope("scope");
    String path = r.optionalString("path");
    String pathGlob = r.optionalString("path_glob");
    Long limit = r.optionalLong("limit", 1, RetrieveQuery.MAX_LIMIT);
    r.finish();
    if ((path == null) == (pathGlob == null)) {
      throw SgmException.invalidRequest("path", "give exactly one of path or path_glob");
    }
    RetrieveQuery.Builder query =
        RetrieveQuery.builder(scope)
            .types(List.of("diff"))
            .orderBy(RetrieveQuery.OrderBy.CREATED_AT);
    Predicate<MemoryRecord> keep = record -> true;
    if (path != null) {
      query.filter("data.files", TextNode.valueOf(path));
    } else {
      PathMatcher matcher = glob(pathGlob);
      keep =
          record -> {
            for (JsonNode file : record.data().path("files")) {
              if (matches(matcher, file.asText())) {
                return true;
              }
            }
            return false;
          };
    }
    return listing("diffs", find(caller, query, keep, limit));
  }
}
