package dev.sgm.profile.history;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.OperationEffects;
import dev.sgm.api.RequestReader;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoreResult;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordWriter;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The history profile's operations. The engine does the keeping (every write logged, deletes soft)
 * while this profile is active; the operations read the log and write through the engine, so a
 * restore is a new version made by the engine's own rules, never a rewrite of the past.
 */
final class HistoryProfile implements Profile {
  private static final int MAX_NAME_LENGTH = 256;

  private final ProfileContext context;

  HistoryProfile(ProfileContext context) {
    this.context = context;
  }

  @Override
  public List<String> features() {
    return List.of("versions", "snapshots", "restoration");
  }

  @Override
  public boolean keepsHistory() {
    return true;
  }

  @Override
  public List<ProfileOperation> operations() {
    List<ProfileOperation> operations = new ArrayList<>(versionOperations());
    operations.addAll(snapshotOperations());
    return List.copyOf(operations);
  }

  /** {@code history.*}: the versions of one record. */
  private List<ProfileOperation> versionOperations() {
    ObjectNode version =
        JsonSchemas.integer("A version number; default the latest.", 1, Long.MAX_VALUE);
    return List.of(
        ProfileOperation.named("history.versions")
            .title("List the versions of a record")
            .description(
                "Lists the versions of one record, newest first, with who wrote each and when.")
            .request(
                record()
                    .optional(
                        "limit", JsonSchemas.integer("Page size.", 1, RetrieveQuery.MAX_LIMIT))
                    .optional("cursor", JsonSchemas.string("The next_cursor of the previous page."))
                    .build())
            .readOnly()
            .response(Responses.versions())
            .body(this::versions),
        ProfileOperation.named("history.read")
            .title("Read a past version")
            .description("Reads one past version of a record.")
            .request(record().optional("version", version).build())
            .readOnly()
            .response(Responses.read())
            .body(this::read),
        ProfileOperation.named("history.restore")
            .title("Restore a past version")
            .description(
                "Makes a past version of a record its current version again (as a new version).")
            .request(record().optional("version", version).build())
            .effects(OperationEffects.WRITE)
            .response(Responses.restore())
            .body(this::restore),
        ProfileOperation.named("history.undelete")
            .title("Bring back a deleted record")
            .description("Brings a deleted record back as it was when deleted.")
            .request(record().build())
            .effects(OperationEffects.WRITE)
            .response(Responses.undelete())
            .body(this::undelete));
  }

  /** {@code snapshots.*}: named states of a scope. */
  private List<ProfileOperation> snapshotOperations() {
    ObjectNode name = JsonSchemas.text("The snapshot's name.");
    return List.of(
        ProfileOperation.named("snapshots.create")
            .title("Take a snapshot of a scope")
            .description(
                "Names the present state of a scope (optionally with its narrower scopes) to query or"
                    + " restore later. Nothing is copied.")
            .request(
                scoped()
                    .required("name", name)
                    .optional("descendants", JsonSchemas.bool("Include the narrower scopes."))
                    .build())
            .effects(OperationEffects.WRITE)
            .response(Responses.createSnapshot())
            .body(this::createSnapshot),
        ProfileOperation.named("snapshots.list")
            .title("List snapshots")
            .description("Lists the snapshots of a scope, newest first.")
            .request(scoped().build())
            .readOnly()
            .response(Responses.listSnapshots())
            .body(this::listSnapshots),
        ProfileOperation.named("snapshots.retrieve")
            .title("Recall as of a snapshot")
            .description("Answers a retrieve query as the scope was when the snapshot was taken.")
            .request(
                JsonSchemas.object()
                    .additionalProperties(false)
                    .required("snapshot", scoped().required("name", name).part())
                    .required(
                        "query", JsonSchemas.anyObject("A retrieve request, as of the snapshot."))
                    .build())
            .readOnly()
            .response(Responses.retrieveSnapshot())
            .body(this::retrieveSnapshot),
        ProfileOperation.named("snapshots.restore")
            .title("Put a scope back to a snapshot")
            .description(
                "Puts a scope back as it was at a snapshot, in one transaction: changed records are"
                    + " restored, records created since are deleted.")
            .request(scoped().required("name", name).build())
            .effects(OperationEffects.write(true))
            .response(Responses.restoreSnapshot())
            .body(this::restoreSnapshot));
  }

  /** A request naming a scope. */
  private static JsonSchemas.ObjectSchema scoped() {
    return JsonSchemas.object()
        .additionalProperties(false)
        .required("scope", JsonSchemas.scope("The scope, e.g. {\"project\": \"myproject\"}."));
  }

  /** A request naming one record. */
  private static JsonSchemas.ObjectSchema record() {
    return scoped().required("id", JsonSchemas.text("The record's id."));
  }

  // ---- history.*

  private JsonNode versions(Caller caller, JsonNode json) {
    RequestReader request = RequestReader.of(json);
    Scope scope = request.requireScope("scope");
    String id = request.requireString("id");
    Long limit = request.optionalLong("limit", 1, RetrieveQuery.MAX_LIMIT);
    String cursor = request.optionalString("cursor");
    request.finish();
    int size = limit == null ? RetrieveQuery.DEFAULT_LIMIT : limit.intValue();
    long before = cursor == null ? Long.MAX_VALUE : decodeCursor(cursor);
    return context.atomically(
        caller,
        writer -> {
          List<VersionEntry> entries = writer.storage().versions(scope, id, before, size + 1);
          if (entries.isEmpty()
              && cursor == null
              && writer.storage().findForUpdate(scope, id).isEmpty()) {
            throw notFound(scope, id);
          }
          ObjectNode response = Json.object();
          ArrayNode versions = response.putArray("versions");
          for (VersionEntry entry : entries.subList(0, Math.min(size, entries.size()))) {
            versions.add(describe(entry));
          }
          if (entries.size() > size) {
            response.put("next_cursor", encodeCursor(entries.get(size - 1).seq()));
          }
          return response;
        });
  }

  private JsonNode read(Caller caller, JsonNode json) {
    RequestReader request = RequestReader.of(json);
    Scope scope = request.requireScope("scope");
    String id = request.requireString("id");
    Long version = request.optionalLong("version", 1, Long.MAX_VALUE);
    request.finish();
    if (version == null) {
      missing("version");
    }
    return context.atomically(caller, writer -> describe(findVersion(writer, scope, id, version)));
  }

  private JsonNode restore(Caller caller, JsonNode json) {
    RequestReader request = RequestReader.of(json);
    Scope scope = request.requireScope("scope");
    String id = request.requireString("id");
    Long version = request.optionalLong("version", 1, Long.MAX_VALUE);
    request.finish();
    if (version == null) {
      missing("version");
    }
    return context.atomically(
        caller,
        writer -> {
          VersionEntry past = findVersion(writer, scope, id, version);
          StoreResult result = writer.store(Json.parse(past.document()), Change.Kind.RESTORED);
          ObjectNode response = result.toJson();
          response.put("restored_from", version);
          return response;
        });
  }

  private JsonNode undelete(Caller caller, JsonNode json) {
    RequestReader request = RequestReader.of(json);
    Scope scope = request.requireScope("scope");
    String id = request.requireString("id");
    request.finish();
    return context.atomically(
        caller,
        writer -> {
          StoredRecord row =
              writer.storage().findForUpdate(scope, id).orElseThrow(() -> notFound(scope, id));
          if (!row.deleted()) {
            throw new SgmException(
                ErrorCode.CONFLICT, "record " + scope.qualify(id) + " is not deleted");
          }
          return writer.store(Json.parse(row.document()), Change.Kind.RESTORED).toJson();
        });
  }

  private static VersionEntry findVersion(
      RecordWriter writer, Scope scope, String id, long version) {
    long before = Long.MAX_VALUE;
    while (true) {
      List<VersionEntry> page = writer.storage().versions(scope, id, before, 200);
      for (VersionEntry entry : page) {
        if (entry.version() == version && !entry.deleted()) {
          return entry;
        }
        if (entry.version() < version) {
          break;
        }
      }
      if (page.size() < 200 || page.get(page.size() - 1).version() < version) {
        throw new SgmException(
            ErrorCode.NOT_FOUND, "no version " + version + " of " + scope.qualify(id) + " is kept");
      }
      before = page.get(page.size() - 1).seq();
    }
  }

  private static ObjectNode describe(VersionEntry entry) {
    ObjectNode json = Json.object();
    json.put("version", entry.version());
    json.put("deleted", entry.deleted());
    json.put("written_at", Timestamps.format(micros(entry.writtenMicros())));
    json.put("writer", entry.writer());
    json.set("record", Json.parse(entry.document()));
    return json;
  }

  // ---- snapshots.*

  private JsonNode createSnapshot(Caller caller, JsonNode json) {
    RequestReader request = RequestReader.of(json);
    Scope scope = request.requireScope("scope");
    String name = snapshotName(request.requireString("name"));
    boolean descendants = request.optionalBoolean("descendants", false);
    request.finish();
    return context.atomically(
        caller,
        writer -> {
          SnapshotEntry snapshot =
              new SnapshotEntry(
                  scope,
                  name,
                  descendants,
                  writer.storage().currentSequence(),
                  Timestamps.toMicros(context.clock().instant()),
                  caller.principal().orElse(caller.origin()));
          writer.storage().putSnapshot(snapshot);
          ObjectNode response = Json.object();
          response.set("snapshot", describe(snapshot));
          return response;
        });
  }

  private JsonNode listSnapshots(Caller caller, JsonNode json) {
    RequestReader request = RequestReader.of(json);
    Scope scope = request.requireScope("scope");
    request.finish();
    return context.atomically(
        caller,
        writer -> {
          ObjectNode response = Json.object();
          ArrayNode list = response.putArray("snapshots");
          writer.storage().snapshots(scope).forEach(s -> list.add(describe(s)));
          return response;
        });
  }

  private JsonNode retrieveSnapshot(Caller caller, JsonNode json) {
    RequestReader request = RequestReader.of(json);
    ObjectNode snapshotRef = request.requireObject("snapshot");
    ObjectNode queryJson = request.requireObject("query");
    request.finish();
    RequestReader ref = RequestReader.of(snapshotRef);
    Scope scope = ref.requireScope("scope");
    String name = ref.requireString("name");
    ref.finish();
    RetrieveQuery query;
    try {
      query = RetrieveQuery.fromJson(queryJson);
    } catch (SgmException e) {
      throw e.withFieldPrefix("query.");
    }
    List<MemoryRecord> candidates =
        context.atomically(
            caller,
            writer -> {
              SnapshotEntry snapshot = findSnapshot(writer, scope, name);
              List<MemoryRecord> records = new ArrayList<>();
              for (VersionEntry entry :
                  writer.storage().stateAt(scope, snapshot.descendants(), snapshot.seq())) {
                if (!entry.deleted()) {
                  records.add(MemoryRecord.ofStoredText(entry.document()));
                }
              }
              return records;
            });
    return context.retrieveAmong(caller, candidates, query).toJson();
  }

  private JsonNode restoreSnapshot(Caller caller, JsonNode json) {
    RequestReader request = RequestReader.of(json);
    Scope scope = request.requireScope("scope");
    String name = request.requireString("name");
    request.finish();
    return context.atomically(
        caller,
        writer -> {
          SnapshotEntry snapshot = findSnapshot(writer, scope, name);
          Map<String, VersionEntry> then = new LinkedHashMap<>();
          for (VersionEntry entry :
              writer.storage().stateAt(scope, snapshot.descendants(), snapshot.seq())) {
            then.put(entry.scope().qualify(entry.id()), entry);
          }
          Map<String, StoredRecord> now = new LinkedHashMap<>();
          for (StoredRecord row : writer.storage().rows(scope, snapshot.descendants())) {
            now.put(row.scope().qualify(row.id()), row);
          }
          int restored = 0;
          int deleted = 0;
          int unchanged = 0;
          for (Map.Entry<String, VersionEntry> e : then.entrySet()) {
            VersionEntry past = e.getValue();
            StoredRecord current = now.get(e.getKey());
            boolean liveNow = current != null && !current.deleted();
            if (past.deleted()) {
              if (liveNow) {
                writer.delete(current.scope(), current.id());
                deleted++;
              } else {
                unchanged++;
              }
            } else if (liveNow
                && MemoryRecord.sameDocument(
                    (ObjectNode) Json.parse(past.document()),
                    (ObjectNode) Json.parse(current.document()))) {
              unchanged++;
            } else {
              writer.store(Json.parse(past.document()), Change.Kind.RESTORED);
              restored++;
            }
          }
          for (Map.Entry<String, StoredRecord> e : now.entrySet()) {
            StoredRecord current = e.getValue();
            if (!then.containsKey(e.getKey()) && !current.deleted()) {
              // Created after the snapshot: gone in the state being restored.
              writer.delete(current.scope(), current.id());
              deleted++;
            }
          }
          ObjectNode response = Json.object();
          response.set("snapshot", describe(snapshot));
          response.put("restored", restored);
          response.put("deleted", deleted);
          response.put("unchanged", unchanged);
          return response;
        });
  }

  private static SnapshotEntry findSnapshot(RecordWriter writer, Scope scope, String name) {
    return writer
        .storage()
        .snapshot(scope, name)
        .orElseThrow(
            () ->
                new SgmException(
                    ErrorCode.NOT_FOUND,
                    "no snapshot named '" + name + "' in " + scope.canonical()));
  }

  private static ObjectNode describe(SnapshotEntry snapshot) {
    ObjectNode json = Json.object();
    json.put("name", snapshot.name());
    json.set("scope", snapshot.scope().toJson());
    json.put("descendants", snapshot.descendants());
    json.put("created_at", Timestamps.format(micros(snapshot.createdMicros())));
    json.put("created_by", snapshot.createdBy());
    return json;
  }

  private static String snapshotName(String name) {
    if (name.codePointCount(0, name.length()) > MAX_NAME_LENGTH) {
      throw SgmException.invalidRequest(
          "name", "is longer than " + MAX_NAME_LENGTH + " characters");
    }
    if (name.chars().anyMatch(Character::isISOControl)) {
      throw SgmException.invalidRequest("name", "must not contain control characters");
    }
    return name;
  }

  // ---- helpers

  private static void missing(String field) {
    throw SgmException.invalidRequest(field, "is required");
  }

  private static SgmException notFound(Scope scope, String id) {
    return new SgmException(ErrorCode.NOT_FOUND, "no record " + scope.qualify(id));
  }

  private static Instant micros(long micros) {
    return Instant.EPOCH.plusNanos(micros * 1000);
  }

  private static String encodeCursor(long seq) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString(("v1:" + seq).getBytes(StandardCharsets.UTF_8));
  }

  private static long decodeCursor(String cursor) {
    try {
      String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
      if (text.startsWith("v1:")) {
        return Long.parseLong(text.substring(3));
      }
    } catch (IllegalArgumentException e) {
      // Falls through to the error below.
    }
    throw SgmException.invalidRequest("cursor", "is not a cursor this server issued");
  }
}
