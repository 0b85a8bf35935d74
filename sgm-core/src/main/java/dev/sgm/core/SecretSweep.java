package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Json;
import dev.sgm.api.RequestReader;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoredContent;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * {@code secrets.scan}: looks for credentials in what is already stored (written before the scanner
 * existed, or while {@code secrets.on-detect} allowed them), page by page so that a caller can show
 * progress: first every row, then the version log where history is kept, then text content kept by
 * hash. It reports where each one is (scope, id, version, field, kind, position; a content's hash),
 * never the credential. With {@code fix}, a live record is stored again, redacted, as its next
 * version; the old versions and hidden rows that hold one are rewritten in place, since a redaction
 * that leaves the key in the history is none. Content is reported, not rewritten: its address is
 * its hash, which the records referring to it carry. What is found and not fixed is counted in
 * {@code unfixed}; a record that cannot be fixed does not stop the sweep.
 */
final class SecretSweep {
  /** Rows, versions or contents looked at in one call when the request does not say. */
  static final int DEFAULT_PAGE = 1000;

  static final int MAX_PAGE = 10_000;

  private static final System.Logger LOG = System.getLogger(SecretSweep.class.getName());

  private final Storage storage;
  private final RecordWrites writes;
  private final SecretPolicy secrets;

  SecretSweep(Storage storage, RecordWrites writes, SecretPolicy secrets) {
    this.storage = storage;
    this.writes = writes;
    this.secrets = secrets;
  }

  /** What became of a row, version or content: it held nothing, or was fixed, or was left. */
  private enum Outcome {
    CLEAN,
    FIXED,
    UNFIXED
  }

  /** The parts of a sweep, in order, by the names the answer's {@code phase} gives them. */
  private enum Phase {
    ROWS("records"),
    VERSIONS("history"),
    CONTENTS("contents");

    final String wireName;

    Phase(String wireName) {
      this.wireName = wireName;
    }
  }

  JsonNode run(Caller caller, JsonNode json) {
    Authorization.requireOwner(caller, "scan every scope for secrets");
    RequestReader request = RequestReader.of(json);
    boolean fix = request.optionalBoolean("fix", false);
    Long limit = request.optionalLong("limit", 1, MAX_PAGE);
    String cursor = request.optionalString("cursor");
    request.finish();
    int page = limit == null ? DEFAULT_PAGE : limit.intValue();
    Position at = Position.parse(cursor);
    ObjectNode answer = Json.object();
    ArrayNode findings = answer.putArray("findings");
    long[] counts = new long[Outcome.values().length];
    long scanned = 0;
    String next;
    switch (at.phase()) {
      case ROWS -> {
        if (cursor == null) {
          answer.put("total_records", storage.countLive());
        }
        List<StoredRecord> rows = rows(Long.parseLong(at.after()), page);
        for (StoredRecord row : rows) {
          scanned++;
          counts[row(caller, row, fix, findings).ordinal()]++;
        }
        next =
            rows.size() == page
                ? "rows:" + rows.getLast().rowKey()
                : keepsVersions() ? "versions:0" : contentsCursor("");
      }
      case VERSIONS -> {
        List<VersionEntry> entries = storage.versionsAfter(Long.parseLong(at.after()), page);
        for (VersionEntry entry : entries) {
          scanned++;
          counts[version(entry, fix, findings).ordinal()]++;
        }
        next = entries.size() == page ? "versions:" + entries.getLast().seq() : contentsCursor("");
      }
      default -> {
        List<String> hashes = storage.contentHashesAfter(at.after(), page);
        for (String hash : hashes) {
          scanned++;
          counts[content(hash, findings).ordinal()]++;
        }
        next = hashes.size() == page ? contentsCursor(hashes.getLast()) : null;
      }
    }
    answer.put("phase", at.phase().wireName);
    answer.put("scanned", scanned);
    answer.put("fixed", counts[Outcome.FIXED.ordinal()]);
    answer.put("unfixed", counts[Outcome.UNFIXED.ordinal()]);
    if (next != null) {
      answer.put("next_cursor", next);
    }
    return answer;
  }

  /** Every row, hidden ones included where the storage can list them. */
  private List<StoredRecord> rows(long after, int limit) {
    try {
      return storage.scanRows(after, limit);
    } catch (SgmException e) {
      if (e.code() != ErrorCode.UNSUPPORTED_CAPABILITY) {
        throw e;
      }
      return storage.scanLive(after, limit);
    }
  }

  /** Whether the storage can list its version log (one that keeps none answers with nothing). */
  private boolean keepsVersions() {
    return lists(() -> storage.versionsAfter(0, 1));
  }

  /** The cursor of the content phase after {@code hash}, or null where content cannot be listed. */
  private String contentsCursor(String hash) {
    return hash.isEmpty() && !lists(() -> storage.contentHashesAfter("", 1))
        ? null
        : "contents:" + hash;
  }

  private static boolean lists(Runnable listing) {
    try {
      listing.run();
      return true;
    } catch (SgmException e) {
      if (e.code() != ErrorCode.UNSUPPORTED_CAPABILITY) {
        throw e;
      }
      return false;
    }
  }

  private Outcome row(Caller caller, StoredRecord row, boolean fix, ArrayNode findings) {
    JsonNode document = Json.parse(row.document());
    List<SecretScanner.Finding> found = secrets.find(document);
    if (found.isEmpty()) {
      return Outcome.CLEAN;
    }
    report(
        findings, row.scope(), row.id(), row.version(), row.deleted() ? "hidden" : "live", found);
    if (!fix || !(document instanceof ObjectNode)) {
      return Outcome.UNFIXED;
    }
    try {
      if (row.deleted()) {
        ObjectNode redacted = ((ObjectNode) document).deepCopy();
        secrets.redact(redacted);
        String clean = Json.write(redacted);
        boolean rewritten =
            storage.inTransaction(
                tx -> tx.rewriteHiddenRow(row.scope(), row.id(), row.version(), clean));
        return rewritten ? Outcome.FIXED : Outcome.UNFIXED;
      }
      return writes.storeRedacted(caller, document, row.version()).isPresent()
          ? Outcome.FIXED
          : Outcome.UNFIXED;
    } catch (SgmException e) {
      // Changed since it was read (conflict), or a record today's rules refuse: left, counted, and
      // found again by the next sweep; the others are still fixed.
      LOG.log(
          System.Logger.Level.WARNING,
          "secrets.scan: "
              + row.scope().qualify(row.id())
              + " holds a credential and was not fixed: "
              + e.code().wireName());
      return Outcome.UNFIXED;
    }
  }

  private Outcome version(VersionEntry entry, boolean fix, ArrayNode findings) {
    if (entry.document().isEmpty()) {
      return Outcome.CLEAN;
    }
    JsonNode document = Json.parse(entry.document());
    List<SecretScanner.Finding> found = secrets.find(document);
    if (found.isEmpty()) {
      return Outcome.CLEAN;
    }
    report(findings, entry.scope(), entry.id(), entry.version(), "history", found);
    if (!fix || !(document instanceof ObjectNode)) {
      return Outcome.UNFIXED;
    }
    ObjectNode redacted = ((ObjectNode) document).deepCopy();
    secrets.redact(redacted);
    String clean = Json.write(redacted);
    boolean rewritten =
        storage.inTransaction(
            tx -> tx.rewriteVersion(entry.scope(), entry.id(), entry.seq(), clean));
    return rewritten ? Outcome.FIXED : Outcome.UNFIXED;
  }

  /** Text content kept by hash: reported and left, since its address is its hash. */
  private Outcome content(String hash, ArrayNode findings) {
    StoredContent content = storage.getContent(hash).orElse(null);
    if (content == null || !"utf-8".equals(content.reference().encoding())) {
      return Outcome.CLEAN; // binary content is not text, and is not scanned
    }
    String text = new String(content.bytes(), StandardCharsets.UTF_8);
    List<SecretScanner.Finding> found = secrets.find(Json.object().put("content", text));
    for (SecretScanner.Finding finding : found) {
      findings
          .addObject()
          .put("hash", hash)
          .put("in", "content")
          .put("field", finding.field())
          .put("kind", finding.kind())
          .put("position", finding.start());
    }
    return found.isEmpty() ? Outcome.CLEAN : Outcome.UNFIXED;
  }

  private static void report(
      ArrayNode findings,
      Scope scope,
      String id,
      long version,
      String where,
      List<SecretScanner.Finding> found) {
    for (SecretScanner.Finding finding : found) {
      ObjectNode one = findings.addObject();
      one.set("scope", scope.toJson());
      one.put("id", id);
      one.put("version", version);
      one.put("in", where);
      one.put("field", finding.field());
      one.put("kind", finding.kind());
      one.put("position", finding.start());
    }
  }

  /** Where a sweep goes on from: after a row key, a sequence of the version log, or a hash. */
  private record Position(Phase phase, String after) {
    static Position parse(String cursor) {
      if (cursor == null) {
        return new Position(Phase.ROWS, "0");
      }
      int colon = cursor.indexOf(':');
      String phase = colon < 0 ? "" : cursor.substring(0, colon);
      String after = cursor.substring(colon + 1);
      if (phase.equals("contents") && after.matches("[0-9a-f]{0,64}")) {
        return new Position(Phase.CONTENTS, after);
      }
      if ((phase.equals("rows") || phase.equals("versions")) && after.matches("[0-9]{1,18}")) {
        return new Position(phase.equals("rows") ? Phase.ROWS : Phase.VERSIONS, after);
      }
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "cursor: not one this operation gave",
          List.of(new FieldError("cursor", "give back the next_cursor of the last answer")));
    }
  }
}
