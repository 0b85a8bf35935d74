package dev.sgm.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Grants;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.SnapshotEntry;
import dev.sgm.api.spi.StorageTransaction;
import dev.sgm.api.spi.StoredRecord;
import dev.sgm.api.spi.VersionEntry;
import dev.sgm.api.spi.WriteLog;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The one statement of who may do what (CONTRACT §8), for every operation on every transport: the
 * engine asks here before it reads or writes on a caller's behalf. A scope outside the caller's
 * grants is {@code forbidden} when an operation names it; a retrieve with a broader scope mode
 * keeps to the granted scopes without a hint of the rest; a record above the caller's clearance
 * comes back with {@code content}, {@code data} and {@code reference} withheld and {@code redacted:
 * true}, and cannot be overwritten or deleted by that caller.
 */
final class Authorization {
  /** The fields a redacted record withholds. */
  static final List<String> WITHHELD = List.of("content", "data", "reference");

  private Authorization() {}

  /** {@code forbidden} unless the caller may read records of {@code scope}. */
  static void requireRead(Caller caller, Scope scope) {
    if (!caller.grants().canRead(scope)) {
      throw forbidden(caller, "read", scope);
    }
  }

  /**
   * {@code forbidden} unless the caller may keep content ({@code put_content}): content is kept by
   * hash, outside any scope, so a caller needs a grant to write somewhere.
   */
  static void requireContentWrite(Caller caller) {
    Grants grants = caller.grants();
    if (!grants.isOwner()
        && grants.grants().stream().noneMatch(g -> g.access() == Grants.Access.READ_WRITE)) {
      throw new SgmException(ErrorCode.FORBIDDEN, name(caller) + " may not write anywhere");
    }
  }

  /**
   * {@code forbidden} unless the caller may read content by hash alone: only the owner, since
   * content belongs to no scope; others resolve it through {@code read} of a record they may see.
   */
  static void requireContentRead(Caller caller) {
    if (!caller.grants().isOwner()) {
      throw new SgmException(
          ErrorCode.FORBIDDEN,
          "content by hash is for the owner; read a record with resolve: true");
    }
  }

  /** {@code forbidden} unless the caller is the owner: administration such as tokens. */
  static void requireOwner(Caller caller, String what) {
    if (!caller.grants().isOwner()) {
      throw new SgmException(
          ErrorCode.FORBIDDEN,
          "only the owner may " + what + "; " + name(caller) + " is not the owner");
    }
  }

  /** {@code forbidden} unless the caller may write records of {@code scope}. */
  static void requireWrite(Caller caller, Scope scope) {
    if (!caller.grants().canWrite(scope)) {
      throw forbidden(caller, "write", scope);
    }
  }

  /**
   * The checks of a write of {@code record} (of {@code scope}, as the caller has read it from the
   * record) over {@code existing} (the live record there, or null): the scope writable, the agent
   * one the caller may speak for, the record's level and the replaced one's within the caller's
   * clearance.
   */
  static void requireStore(Caller caller, Scope scope, ObjectNode record, StoredRecord existing) {
    Grants grants = caller.grants();
    if (grants.isOwner()) {
      return;
    }
    requireWrite(caller, scope);
    caller.requireAgent(record.path("provenance").path("agent").asText(), "provenance.agent");
    Sensitivity level = Sensitivity.ofJson(record.path("sensitivity").path("level"));
    if (!grants.cleared(level)) {
      throw new SgmException(
          ErrorCode.FORBIDDEN,
          name(caller)
              + " is cleared up to "
              + grants.clearance().wireName()
              + " and may not write a "
              + level.wireName()
              + " record",
          List.of(new FieldError("sensitivity.level", "above the caller's clearance")));
    }
    requireModifiable(caller, existing);
  }

  /** {@code forbidden} when {@code existing} is above the caller's clearance (or not readable). */
  static void requireModifiable(Caller caller, StoredRecord existing) {
    if (existing == null || caller.grants().isOwner()) {
      return;
    }
    requireWrite(caller, existing.scope());
    if (!caller.grants().cleared(levelOf(existing.document()))) {
      throw new SgmException(
          ErrorCode.FORBIDDEN,
          existing.scope().qualify(existing.id()) + " is above the clearance of " + name(caller));
    }
  }

  /**
   * The scopes a retrieve is answered within, for a caller whose grants do not cover everything the
   * query covers: its granted scopes that can hold a record the query covers (those agreeing with
   * the query's scope on every key both name). Storage and the search index apply them as a filter,
   * so records, {@code total} and cursors are those of the readable records alone (text scores use
   * the index's statistics, as for every caller). Null when the grants cover the whole query; empty
   * when they cover none of it.
   */
  static List<Scope> readableWithin(Caller caller, RetrieveQuery query) {
    Grants grants = caller.grants();
    if (grants.isOwner()) {
      return null;
    }
    boolean narrowerOnly =
        query.scopeMode() == ScopeMode.EXACT || query.scopeMode() == ScopeMode.DESCENDANTS;
    if (narrowerOnly && grants.canRead(query.scope())) {
      return null;
    }
    List<Scope> within = new java.util.ArrayList<>();
    for (Grants.Grant grant : grants.grants()) {
      if (agree(grant.scope(), query.scope()) && !within.contains(grant.scope())) {
        within.add(grant.scope());
      }
    }
    return within;
  }

  /** True when no key has different values in the two scopes: one record could lie in both. */
  private static boolean agree(Scope a, Scope b) {
    for (Map.Entry<String, String> pair : a.pairs().entrySet()) {
      String other = b.pairs().get(pair.getKey());
      if (other != null && !other.equals(pair.getValue())) {
        return false;
      }
    }
    return true;
  }

  /**
   * True when the caller sees every record whole: a record above a lower clearance withholds its
   * text and data, which then must neither match nor rank it.
   */
  static boolean seesAllLevels(Caller caller) {
    return caller.grants().isOwner() || caller.grants().clearance() == Sensitivity.SECRET;
  }

  /**
   * The precondition of a retrieve: an exact query of a scope the caller may not read is {@code
   * forbidden}; a broader mode is answered within the granted scopes, silently.
   */
  static void requireRetrieve(Caller caller, RetrieveQuery query) {
    if (query.scopeMode() == ScopeMode.EXACT) {
      requireRead(caller, query.scope());
    }
  }

  /**
   * The precondition of the change feed and its watches, as of a retrieve: an exact scope the
   * caller may not read is {@code forbidden}; a broader mode follows the granted scopes within it
   * silently, each event checked as it comes.
   */
  static void requireChanges(Caller caller, dev.sgm.api.ChangesRequest request) {
    if (request.scopeMode() == ScopeMode.EXACT) {
      requireRead(caller, request.scope());
    }
  }

  /** The record as the caller may see it, or null when it may not see it at all. */
  static MemoryRecord visible(Caller caller, MemoryRecord record) {
    Grants grants = caller.grants();
    if (grants.isOwner()) {
      return record;
    }
    if (!grants.canRead(record.scope())) {
      return null;
    }
    return cleared(grants, record);
  }

  /**
   * A record read from a scope {@link #requireRead} let the caller read, as the caller may see it:
   * only its level is checked, so that a read does not parse the stored text for its scope.
   */
  static MemoryRecord visibleInReadableScope(Caller caller, MemoryRecord record) {
    Grants grants = caller.grants();
    return grants.isOwner() ? record : cleared(grants, record);
  }

  private static MemoryRecord cleared(Grants grants, MemoryRecord record) {
    if (grants.clearance() == Sensitivity.SECRET || grants.cleared(Sensitivity.of(record))) {
      return record;
    }
    return redacted(record);
  }

  /** {@code record} with the withheld fields removed and {@code redacted: true}. */
  static MemoryRecord redacted(MemoryRecord record) {
    ObjectNode copy = record.json().deepCopy();
    redact(copy);
    return MemoryRecord.of(copy);
  }

  private static void redact(ObjectNode record) {
    WITHHELD.forEach(record::remove);
    record.put("redacted", true);
  }

  /**
   * A profile operation's response as the caller may see it: every record in it (an object with
   * {@code id}, {@code type}, {@code scope} and {@code provenance}) above the caller's clearance
   * redacted; one of a scope the caller may not read removed (the guarded transaction keeps such
   * records from profiles; this is the second line).
   */
  static JsonNode visibleResponse(Caller caller, JsonNode response) {
    if (caller.grants().isOwner() || response == null) {
      return response;
    }
    JsonNode copy = response.deepCopy();
    scrub(caller, copy);
    return copy;
  }

  private static void scrub(Caller caller, JsonNode node) {
    if (node instanceof ObjectNode object) {
      List<String> removed = new java.util.ArrayList<>();
      for (Map.Entry<String, JsonNode> field : object.properties()) {
        if (isRecord(field.getValue()) && hidden(caller, field.getValue())) {
          removed.add(field.getKey());
        } else {
          scrub(caller, field.getValue());
        }
      }
      object.remove(removed);
      if (isRecord(object) && !caller.grants().cleared(levelOf(object))) {
        redact(object);
      }
    } else if (node instanceof ArrayNode array) {
      for (int i = array.size() - 1; i >= 0; i--) {
        if (isRecord(array.get(i)) && hidden(caller, array.get(i))) {
          array.remove(i);
        } else {
          scrub(caller, array.get(i));
        }
      }
    }
  }

  private static boolean isRecord(JsonNode node) {
    return node.isObject()
        && node.path("id").isTextual()
        && node.path("type").isTextual()
        && node.path("scope").isObject()
        && node.path("provenance").isObject();
  }

  private static boolean hidden(Caller caller, JsonNode record) {
    try {
      return !caller
          .grants()
          .canRead(Scope.fromJson(record.get("scope"), "scope", ErrorCode.INTERNAL));
    } catch (SgmException e) {
      return true;
    }
  }

  private static Sensitivity levelOf(JsonNode record) {
    return Sensitivity.ofJson(record.path("sensitivity").path("level"));
  }

  private static Sensitivity levelOf(String document) {
    return levelOf(dev.sgm.api.Json.parse(document));
  }

  /**
   * The storage transaction as a profile's work on the caller's behalf sees it: the versions and
   * snapshots of a scope it names are {@code forbidden} when the caller may not read that scope
   * (decided by the scope alone, as for every operation that names one); rows of scopes it may not
   * read are not there when it asks for a scope's narrower ones, nor when it looks a record up by
   * identity (a reference to elsewhere reads as missing); writes to scopes it may not write are
   * {@code forbidden}.
   */
  static StorageTransaction guard(Caller caller, StorageTransaction tx) {
    if (caller.grants().isOwner()) {
      return tx;
    }
    Grants grants = caller.grants();
    return new StorageTransaction() {
      @Override
      public Optional<StoredRecord> findForUpdate(Scope scope, String id) {
        return grants.canRead(scope) ? tx.findForUpdate(scope, id) : Optional.empty();
      }

      @Override
      public void put(StoredRecord record, WriteLog log) {
        requireWrite(caller, record.scope());
        tx.put(record, log);
      }

      @Override
      public void remove(Scope scope, String id, WriteLog log) {
        requireWrite(caller, scope);
        tx.remove(scope, id, log);
      }

      @Override
      public List<StoredRecord> rows(Scope scope, boolean descendants) {
        if (!descendants) {
          requireRead(caller, scope);
        }
        return tx.rows(scope, descendants).stream().filter(r -> grants.canRead(r.scope())).toList();
      }

      @Override
      public List<VersionEntry> versions(Scope scope, String id, long beforeSeq, int limit) {
        requireRead(caller, scope);
        return tx.versions(scope, id, beforeSeq, limit);
      }

      @Override
      public List<VersionEntry> stateAt(Scope scope, boolean descendants, long seq) {
        if (!descendants) {
          requireRead(caller, scope);
        }
        return tx.stateAt(scope, descendants, seq).stream()
            .filter(v -> grants.canRead(v.scope()))
            .toList();
      }

      @Override
      public long currentSequence() {
        return tx.currentSequence();
      }

      @Override
      public void putSnapshot(SnapshotEntry snapshot) {
        requireWrite(caller, snapshot.scope());
        tx.putSnapshot(snapshot);
      }

      @Override
      public Optional<SnapshotEntry> snapshot(Scope scope, String name) {
        requireRead(caller, scope);
        return tx.snapshot(scope, name);
      }

      @Override
      public List<SnapshotEntry> snapshots(Scope scope) {
        requireRead(caller, scope);
        return tx.snapshots(scope);
      }
    };
  }

  private static String name(Caller caller) {
    return caller.principal().map(p -> "principal '" + p + "'").orElse("this caller");
  }

  private static SgmException forbidden(Caller caller, String what, Scope scope) {
    return new SgmException(
        ErrorCode.FORBIDDEN,
        name(caller) + " may not " + what + " scope " + scope.canonical(),
        List.of(new FieldError("scope", "outside the caller's grants")));
  }
}
