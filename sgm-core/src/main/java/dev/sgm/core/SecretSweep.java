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
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import java.util.List;

/**
 * {@code secrets.scan}: looks for credentials in what is already stored (written before the scanner
 * existed, or while {@code secrets.on-detect} allowed them), page by page so that a caller can show
 * progress: first every row, then the version log where history is kept. It reports where each one
 * is (scope, id, version, field, kind, position), never the credential. With {@code fix}, a live
 * record is stored again, redacted, as its next version; then the old versions and hidden rows that
 * hold one are rewritten in place, since a redaction that leaves the key in the history is none.
 */
final class SecretSweep {
  /** Rows or version entries looked at in one call when the request does not say. */
  static final int DEFAULT_PAGE = 1000;

  static final int MAX_PAGE = 10_000;

  private final Storage storage;
  private final RecordWrites writes;
  private final SecretPolicy secrets;

  SecretSweep(Storage storage, RecordWrites writes, SecretPolicy secrets) {
    this.storage = storage;
    this.writes = writes;
    this.secrets = secrets;
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
    long fixed = 0;
    long scanned = 0;
    String next;
    if (at.rows()) {
      if (cursor == null) {
        answer.put("total_records", storage.countLive());
      }
      List<StoredRecord> rows = rows(at.after(), page);
      for (StoredRecord row : rows) {
        scanned++;
        fixed += row(caller, row, fix, findings);
      }
      next =
          rows.size() == page
              ? "rows:" + rows.get(rows.size() - 1).rowKey()
              : (keepsVersions() ? "versions:0" : null);
    } else {
      List<VersionEntry> entries = storage.versionsAfter(at.after(), page);
      for (VersionEntry entry : entries) {
        scanned++;
        fixed += version(entry, fix, findings);
      }
      next = entries.size() == page ? "versions:" + entries.get(entries.size() - 1).seq() : null;
    }
    answer.put("phase", at.rows() ? "records" : "history");
    answer.put("scanned", scanned);
    answer.put("fixed", fixed);
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
    try {
      storage.versionsAfter(0, 1);
      return true;
    } catch (SgmException e) {
      if (e.code() != ErrorCode.UNSUPPORTED_CAPABILITY) {
        throw e;
      }
      return false;
    }
  }

  private int row(Caller caller, StoredRecord row, boolean fix, ArrayNode findings) {
    JsonNode document = Json.parse(row.document());
    List<SecretScanner.Finding> found = secrets.find(document);
    if (found.isEmpty()) {
      return 0;
    }
    report(
        findings, row.scope(), row.id(), row.version(), row.deleted() ? "hidden" : "live", found);
    if (!fix) {
      return 0;
    }
    if (row.deleted()) {
      ObjectNode redacted = (ObjectNode) document.deepCopy();
      secrets.redact(redacted);
      return storage.inTransaction(
              tx -> tx.rewriteHiddenRow(row.scope(), row.id(), Json.write(redacted)))
          ? 1
          : 0;
    }
    try {
      return writes.storeRedacted(caller, document, row.version()).isPresent() ? 1 : 0;
    } catch (SgmException e) {
      if (e.code() != ErrorCode.CONFLICT) {
        throw e;
      }
      // Written meanwhile: the new version went through the scanner; nothing is left to do here.
      return 0;
    }
  }

  private int version(VersionEntry entry, boolean fix, ArrayNode findings) {
    if (entry.deleted() && entry.document().isEmpty()) {
      return 0;
    }
    JsonNode document = Json.parse(entry.document());
    List<SecretScanner.Finding> found = secrets.find(document);
    if (found.isEmpty()) {
      return 0;
    }
    report(findings, entry.scope(), entry.id(), entry.version(), "history", found);
    if (!fix) {
      return 0;
    }
    ObjectNode redacted = (ObjectNode) document.deepCopy();
    secrets.redact(redacted);
    return storage.inTransaction(
            tx -> tx.rewriteVersion(entry.scope(), entry.id(), entry.seq(), Json.write(redacted)))
        ? 1
        : 0;
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

  /** Where a scan goes on from: after a row key, or after a sequence of the version log. */
  private record Position(boolean rows, long after) {
    static Position parse(String cursor) {
      if (cursor == null) {
        return new Position(true, 0);
      }
      int colon = cursor.indexOf(':');
      String phase = colon < 0 ? "" : cursor.substring(0, colon);
      try {
        long after = Long.parseLong(cursor.substring(colon + 1));
        if (after >= 0 && (phase.equals("rows") || phase.equals("versions"))) {
          return new Position(phase.equals("rows"), after);
        }
      } catch (NumberFormatException e) {
        // named below
      }
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "cursor: not one this operation gave",
          List.of(new FieldError("cursor", "give back the next_cursor of the last answer")));
    }
  }
}
