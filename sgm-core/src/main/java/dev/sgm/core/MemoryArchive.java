package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ContentReference;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoredContent;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.RecordIndex;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.api.spi.WriteLog;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Writer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A whole memory as JSON Lines, copied exactly from one storage to another: every scope's rows
 * (hidden ones included), the version log in write order, snapshots, and content by hash.
 *
 * <p>The first line is a header, {@code {"sgm_archive": 2, ...}}; then one object a line, by {@code
 * kind}: {@code content} (hash, encoding, bytes, base64 body), then {@code version} entries and
 * {@code snapshot}s interleaved in write order, then {@code row}s. Documents travel as JSON text so
 * that they come back byte for byte.
 *
 * <p>Importing replays the version log into an empty storage in the order it was written, so each
 * entry keeps its version, document, writer and time, and a snapshot lands between the same writes;
 * then every row is written as it was (rows written while history was off have no entries), and a
 * row that no longer exists is removed. Write sequence numbers are the target's own, in the same
 * order.
 *
 * <p>An import goes through the credential policy ({@code secrets.on-detect}) like any write: with
 * {@code redact}, documents and text content holding credentials are stored redacted (content under
 * its new hash, and the records referring to it follow); with {@code reject}, {@link #check}
 * refuses such an archive before anything is written.
 */
public final class MemoryArchive {
  /** The header's key and this format's number. */
  public static final String FORMAT_KEY = "sgm_archive";

  /**
   * The format this version writes and reads; a scope's records alone, one a line, are format 1.
   */
  public static final int FORMAT = 2;

  private static final int PAGE = 500;

  /**
   * Version-log entries read at a time. Storages keep the log by record, not by sequence, so each
   * page sorts the log: large pages keep the number of sorts small.
   */
  private static final int VERSION_PAGE = 10_000;

  private final Storage storage;
  private final RecordIndexer indexer;
  private final SecretPolicy secrets;

  MemoryArchive(Storage storage, RecordIndexer indexer, SecretPolicy secrets) {
    this.storage = storage;
    this.indexer = indexer;
    this.secrets = secrets;
  }

  /**
   * Reads a whole archive and fails, naming the line, the field and the kind, if it holds a
   * credential the policy refuses; does nothing unless the policy is {@code reject}.
   */
  void check(BufferedReader in) throws IOException {
    if (secrets.action() != SecretPolicy.Action.REJECT) {
      return;
    }
    long lineNumber = 0;
    for (String text = in.readLine(); text != null; text = in.readLine()) {
      lineNumber++;
      if (text.isBlank() || lineNumber == 1) {
        continue;
      }
      JsonNode line;
      try {
        line = Json.parse(text);
      } catch (SgmException e) {
        throw SgmException.invalidRequest("line " + lineNumber, e.getMessage());
      }
      try {
        switch (line.path("kind").asText()) {
          case "content" -> {
            if (TEXT.equals(line.path("encoding").asText())) {
              secrets.applyToText(Base64.getDecoder().decode(line.path("body_base64").asText()));
            }
          }
          case "version", "row" -> {
            String document = line.path("document").asText();
            if (!document.isEmpty() && Json.parse(document) instanceof ObjectNode doc) {
              secrets.apply(doc);
            }
          }
          default -> {}
        }
      } catch (SgmException e) {
        throw e.withFieldPrefix("line " + lineNumber + ": ");
      }
    }
  }

  /** The encoding of text content, which is scanned. */
  private static final String TEXT = "utf-8";

  /** What an export wrote or an import read: rows, version-log entries, snapshots, contents. */
  public record Counts(long rows, long versions, long snapshots, long contents) {}

  /** Whether {@code firstLine} is the header of an archive (rather than a record of format 1). */
  public static boolean isArchive(String firstLine) {
    try {
      return Json.parse(firstLine).has(FORMAT_KEY);
    } catch (SgmException e) {
      return false;
    }
  }

  Counts export(Writer out, SgmRuntime.Progress progress) throws IOException {
    ObjectNode header = Json.object();
    header.put(FORMAT_KEY, FORMAT);
    header.put("source", storage.describe());
    header.put("live_records", storage.countLive());
    line(out, header);
    long done = 0;
    long contents = 0;
    for (String after = ""; ; ) {
      List<String> hashes = storage.contentHashesAfter(after, PAGE);
      for (String hash : hashes) {
        StoredContent content =
            storage
                .getContent(hash)
                .orElseThrow(() -> new IllegalStateException("content " + hash + " vanished"));
        ObjectNode c = Json.object();
        c.put("kind", "content");
        c.put("hash", hash);
        c.put("encoding", content.reference().encoding());
        c.put("bytes", content.reference().bytes());
        c.put("body_base64", Base64.getEncoder().encodeToString(content.bytes()));
        line(out, c);
        contents++;
        progress.report(++done, -1);
      }
      if (hashes.size() < PAGE) {
        break;
      }
      after = hashes.getLast();
    }
    Iterator<SnapshotEntry> snapshots = storage.allSnapshots().iterator();
    SnapshotEntry nextSnapshot = snapshots.hasNext() ? snapshots.next() : null;
    long versions = 0;
    long snapshotCount = 0;
    for (long after = 0; ; ) {
      List<VersionEntry> page = storage.versionsAfter(after, VERSION_PAGE);
      for (VersionEntry v : page) {
        while (nextSnapshot != null && nextSnapshot.seq() < v.seq()) {
          line(out, snapshot(nextSnapshot));
          snapshotCount++;
          nextSnapshot = snapshots.hasNext() ? snapshots.next() : null;
        }
        line(out, version(v));
        versions++;
        progress.report(++done, -1);
      }
      if (page.size() < VERSION_PAGE) {
        break;
      }
      after = page.getLast().seq();
    }
    while (nextSnapshot != null) {
      line(out, snapshot(nextSnapshot));
      snapshotCount++;
      nextSnapshot = snapshots.hasNext() ? snapshots.next() : null;
    }
    long rows = 0;
    for (long after = 0; ; ) {
      List<StoredRecord> page = storage.scanRows(after, PAGE);
      for (StoredRecord r : page) {
        line(out, row(r));
        rows++;
        progress.report(++done, -1);
      }
      if (page.size() < PAGE) {
        break;
      }
      after = page.getLast().rowKey();
    }
    return new Counts(rows, versions, snapshotCount, contents);
  }

  /** Copies an archive into this storage, which must hold nothing yet. */
  Counts importInto(BufferedReader in, long totalLines, SgmRuntime.Progress progress)
      throws IOException {
    String header = in.readLine();
    if (header == null || !isArchive(header)) {
      throw SgmException.invalidRequest(
          "FILE", "not an archive: the first line has no " + FORMAT_KEY);
    }
    requireFormat(header);
    if (!storage.scanRows(0, 1).isEmpty()
        || !storage.versionsAfter(0, 1).isEmpty()
        || !storage.allSnapshots().isEmpty()) {
      throw SgmException.invalidRequest(
          "FILE",
          "an archive is imported into an empty memory only, and "
              + storage.describe()
              + " already holds records");
    }
    Replay replay = new Replay();
    long lineNumber = 1;
    for (String text = in.readLine(); text != null; text = in.readLine()) {
      lineNumber++;
      if (text.isBlank()) {
        continue;
      }
      JsonNode line;
      try {
        line = Json.parse(text);
      } catch (SgmException e) {
        throw SgmException.invalidRequest("line " + lineNumber, e.getMessage());
      }
      switch (line.path("kind").asText()) {
        case "content" -> replay.content(line);
        case "version" -> replay.version(line);
        case "snapshot" -> replay.snapshot(line);
        case "row" -> replay.row(line);
        default ->
            throw SgmException.invalidRequest(
                "line " + lineNumber, "unknown kind '" + line.path("kind").asText() + "'");
      }
      replay.flushIfFull();
      progress.report(replay.done(), totalLines);
    }
    replay.finish();
    progress.report(replay.done(), totalLines);
    return replay.counts();
  }

  /** The state of an import: writes waiting for the next transaction, and what each record is. */
  private final class Replay {
    private final List<java.util.function.Consumer<StorageTransaction>> pending = new ArrayList<>();

    /** Each record's last written state, by qualified id, as the replay left it. */
    private final Map<String, StoredRecord> written = new HashMap<>();

    private final java.util.Set<String> rowsSeen = new java.util.HashSet<>();

    /** Text content stored redacted: its hash in the archive, and the reference it has now. */
    private final Map<String, ContentReference> rehashed = new HashMap<>();

    private long rows;
    private long versions;
    private long snapshots;
    private long contents;

    void content(JsonNode line) {
      byte[] body = Base64.getDecoder().decode(line.path("body_base64").asText());
      String hash = line.path("hash").asText();
      String encoding = line.path("encoding").asText();
      ContentReference reference =
          new ContentReference(hash, encoding, line.path("bytes").asLong());
      if (TEXT.equals(encoding)) {
        byte[] clean = secrets.applyToText(body);
        if (clean != body) {
          body = clean;
          reference = new ContentReference(RecordIndexer.sha256(clean), encoding, clean.length);
          rehashed.put(hash, reference);
        }
      }
      storage.putContent(reference, body);
      contents++;
    }

    /**
     * A document as the policy lets it in: redacted where it holds a credential, pointing at
     * content stored redacted; otherwise byte for byte as it was.
     */
    String screened(String document) {
      if (document.isEmpty()) {
        return document;
      }
      JsonNode original = Json.parse(document);
      if (!(original instanceof ObjectNode)) {
        return document;
      }
      ObjectNode doc = (ObjectNode) original.deepCopy();
      ContentReference moved = rehashed.get(doc.path("reference").path("hash").asText(""));
      if (moved != null && doc.get("reference") instanceof ObjectNode reference) {
        reference.put("hash", moved.hash()).put("bytes", moved.bytes());
      }
      secrets.apply(doc);
      return doc.equals(original) ? document : Json.write(doc);
    }

    void version(JsonNode line) {
      Scope scope = scopeOf(line);
      String id = line.path("id").asText();
      String document = screened(line.path("document").asText());
      boolean deleted = line.path("deleted").asBoolean();
      ObjectNode doc = (ObjectNode) Json.parse(document);
      StoredRecord record =
          StoredRecord.toWrite(
              scope,
              id,
              doc.path("type").asText(),
              line.path("version").asLong(),
              createdMicros(doc),
              line.path("written_us").asLong(),
              deleted,
              document,
              deleted ? RecordIndex.NONE : indexer.index(doc));
      WriteLog log =
          new WriteLog(
              deleted ? Change.Kind.DELETED : Change.Kind.STORED,
              line.path("writer").asText(),
              true);
      pending.add(tx -> tx.put(record, log));
      written.put(scope.qualify(id), record);
      versions++;
    }

    void snapshot(JsonNode line) {
      // The snapshot's point is after every write replayed so far and before the next.
      flush();
      Scope scope = scopeOf(line);
      storage.inTransaction(
          tx -> {
            tx.putSnapshot(
                new SnapshotEntry(
                    scope,
                    line.path("name").asText(),
                    line.path("descendants").asBoolean(),
                    tx.currentSequence(),
                    line.path("created_us").asLong(),
                    line.path("created_by").asText()));
            return null;
          });
      snapshots++;
    }

    void row(JsonNode line) {
      Scope scope = scopeOf(line);
      String id = line.path("id").asText();
      String document = screened(line.path("document").asText());
      boolean deleted = line.path("deleted").asBoolean();
      StoredRecord record =
          StoredRecord.toWrite(
              scope,
              id,
              line.path("type").asText(),
              line.path("version").asLong(),
              line.path("created_us").asLong(),
              line.path("updated_us").asLong(),
              deleted,
              document,
              deleted ? RecordIndex.NONE : indexer.index((ObjectNode) Json.parse(document)));
      String key = scope.qualify(id);
      rowsSeen.add(key);
      rows++;
      StoredRecord replayed = written.get(key);
      if (replayed != null && sameRow(replayed, record)) {
        return;
      }
      // Written while history was off (or changed since its last logged version): the row as it
      // is, without a version entry of its own.
      String writer = Json.parse(document).path("provenance").path("agent").asText("import");
      pending.add(
          tx ->
              tx.put(
                  record,
                  new WriteLog(deleted ? Change.Kind.DELETED : Change.Kind.STORED, writer, false)));
      written.put(key, record);
    }

    void flushIfFull() {
      if (pending.size() >= PAGE) {
        flush();
      }
    }

    void flush() {
      if (pending.isEmpty()) {
        return;
      }
      List<java.util.function.Consumer<StorageTransaction>> batch = List.copyOf(pending);
      pending.clear();
      storage.inTransaction(
          tx -> {
            batch.forEach(write -> write.accept(tx));
            return null;
          });
    }

    void finish() {
      // Records whose row was removed (deleted while history was off) after their last version.
      for (StoredRecord r : written.values()) {
        String key = r.scope().qualify(r.id());
        if (!rowsSeen.contains(key)) {
          pending.add(
              tx ->
                  tx.remove(r.scope(), r.id(), new WriteLog(Change.Kind.DELETED, "import", false)));
          flushIfFull();
        }
      }
      flush();
    }

    long done() {
      return rows + versions + snapshots + contents;
    }

    Counts counts() {
      return new Counts(rows, versions, snapshots, contents);
    }
  }

  private static boolean sameRow(StoredRecord a, StoredRecord b) {
    return a.version() == b.version()
        && a.deleted() == b.deleted()
        && a.createdMicros() == b.createdMicros()
        && a.updatedMicros() == b.updatedMicros()
        && a.type().equals(b.type())
        && a.document().equals(b.document());
  }

  private static long createdMicros(ObjectNode doc) {
    Instant created = Timestamps.tryParse(doc.path("created_at").asText(""));
    return created == null ? 0 : Timestamps.toMicros(created);
  }

  private static Scope scopeOf(JsonNode line) {
    return Scope.parseCanonical(line.path("scope").asText());
  }

  private static ObjectNode version(VersionEntry v) {
    ObjectNode n = Json.object();
    n.put("kind", "version");
    n.put("scope", v.scope().canonical());
    n.put("id", v.id());
    n.put("version", v.version());
    n.put("seq", v.seq());
    n.put("written_us", v.writtenMicros());
    n.put("writer", v.writer());
    n.put("deleted", v.deleted());
    n.put("document", v.document());
    return n;
  }

  private static ObjectNode snapshot(SnapshotEntry s) {
    ObjectNode n = Json.object();
    n.put("kind", "snapshot");
    n.put("scope", s.scope().canonical());
    n.put("name", s.name());
    n.put("descendants", s.descendants());
    n.put("seq", s.seq());
    n.put("created_us", s.createdMicros());
    n.put("created_by", s.createdBy());
    return n;
  }

  private static ObjectNode row(StoredRecord r) {
    ObjectNode n = Json.object();
    n.put("kind", "row");
    n.put("scope", r.scope().canonical());
    n.put("id", r.id());
    n.put("type", r.type());
    n.put("version", r.version());
    n.put("created_us", r.createdMicros());
    n.put("updated_us", r.updatedMicros());
    n.put("deleted", r.deleted());
    n.put("document", r.document());
    return n;
  }

  private static void line(Writer out, JsonNode node) throws IOException {
    out.write(Json.write(node));
    out.write('\n');
  }

  /** Refuses an archive of another format, before anything is written. */
  static void requireFormat(String headerLine) {
    JsonNode header = Json.parse(headerLine);
    if (header.path(FORMAT_KEY).asInt() != FORMAT) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "the archive is of format "
              + header.path(FORMAT_KEY)
              + "; this version reads format "
              + FORMAT);
    }
  }
}
