package dev.sgm.core;

import static dev.sgm.api.Operations.CHANGES;
import static dev.sgm.api.Operations.DELETE;
import static dev.sgm.api.Operations.DISCOVER;
import static dev.sgm.api.Operations.PUT_CONTENT;
import static dev.sgm.api.Operations.READ;
import static dev.sgm.api.Operations.RETRIEVE;
import static dev.sgm.api.Operations.SCOPES;
import static dev.sgm.api.Operations.SECRETS_SCAN;
import static dev.sgm.api.Operations.STORE;
import static dev.sgm.api.Operations.STORE_BATCH;
import static dev.sgm.api.Operations.TOKENS_CREATE;
import static dev.sgm.api.Operations.TOKENS_LIST;
import static dev.sgm.api.Operations.TOKENS_REVOKE;
import static dev.sgm.api.Operations.WHOAMI;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.BatchStoreRequest;
import dev.sgm.api.Caller;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.DeleteRequest;
import dev.sgm.api.DiscoverRequest;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.OperationEffects;
import dev.sgm.api.PutContentRequest;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoreRequest;
import java.util.List;

/**
 * Core's own operations, declared once: each one's wire name, description, request and response
 * schemas, and how the engine runs it. Discovery publishes these, and the engine dispatches by
 * them; no other list of the core operations exists.
 */
public final class CoreOperations {
  /** Runs one core operation on the engine. */
  interface Body {
    JsonNode run(Engine engine, Caller caller, JsonNode request);
  }

  /** A declared core operation. */
  record CoreOperation(OperationDescriptor descriptor, Body body) {}

  private static final String MEMORY = JsonSchemas.MEMORY_SCHEMA;

  private static final String SCOPE =
      Json.write(JsonSchemas.scope("The scope, e.g. {\"project\": \"myproject\"}."));

  private static final String STORED_RECORD =
      "{\"description\": \"A record as stored: what the client sent plus the server-set fields.\","
          + " \"allOf\": [{\"$ref\": \""
          + MEMORY
          + "\"}], \"required\": [\"id\", \"type\", \"scope\", \"provenance\", \"created_at\","
          + " \"updated_at\", \"version\", \"schema_version\"]}";

  /** Every core operation, in the order discovery lists them. */
  static final List<CoreOperation> ALL =
      List.of(
          operation(
              DISCOVER,
              "Discover what this server offers",
              OperationEffects.READ,
              "What this memory server supports: protocol version, capabilities, profiles,"
                  + " operations, record types and limits.",
              """
              {"type": "object", "additionalProperties": false,
               "properties": {"accept_versions": {"type": "array", "items": {"type": "string"},
                 "description": "Protocol versions the client speaks; none compatible is unsupported_version."}}}
              """,
              """
              {"$ref": "https://sgm.dev/schema/0.1.0/capability.schema.json"}
              """,
              (engine, caller, request) ->
                  engine.discover(caller, DiscoverRequest.fromJson(request)).toJson()),
          operation(
              STORE,
              "Remember a record",
              OperationEffects.idempotentWrite(true, "expected_version", "if_absent"),
              "Store (create or replace) one record at its scope and id; storing the same document"
                  + " again changes nothing.",
              """
              {"type": "object", "additionalProperties": false, "required": ["record"],
               "properties": {
                 "record": {"$ref": "MEMORY"},
                 "expected_version": {"type": "integer", "minimum": 1,
                   "description": "Fail with conflict unless the stored version is this one."},
                 "if_absent": {"type": "boolean",
                   "description": "Fail with conflict if the record exists."}}}
              """,
              """
              {"type": "object", "required": ["record", "created", "changed"],
               "properties": {"record": STORED_RECORD, "created": {"type": "boolean"},
                 "changed": {"type": "boolean"}}}
              """,
              (engine, caller, request) ->
                  engine.store(caller, StoreRequest.fromJson(request)).toJson()),
          operation(
              STORE_BATCH,
              "Remember many records at once",
              OperationEffects.idempotentWrite(true, "if_absent"),
              "Store up to 1000 complete records at once, all or nothing.",
              """
              {"type": "object", "additionalProperties": false, "required": ["records"],
               "properties": {
                 "records": {"type": "array", "minItems": 1, "maxItems": 1000,
                   "items": {"$ref": "MEMORY"}},
                 "if_absent": {"type": "boolean",
                   "description": "Fail with conflict, storing nothing, if any record exists."}}}
              """,
              """
              {"type": "object", "required": ["results"],
               "properties": {"results": {"type": "array", "items": {"type": "object",
                 "required": ["scope", "id", "version", "created", "changed"],
                 "properties": {"scope": SCOPE, "id": {"type": "string"},
                   "version": {"type": "integer"}, "created": {"type": "boolean"},
                   "changed": {"type": "boolean"}}}}}}
              """,
              (engine, caller, request) ->
                  engine.storeBatch(caller, BatchStoreRequest.fromJson(request)).toJson()),
          operation(
              READ,
              "Read one record",
              OperationEffects.READ,
              "Read one record by its scope and id; with resolve, also the content it references.",
              """
              {"type": "object", "additionalProperties": false, "required": ["scope", "id"],
               "properties": {"scope": SCOPE, "id": {"type": "string"},
                 "resolve": {"type": "boolean",
                   "description": "Include the referenced content."}}}
              """,
              """
              {"type": "object", "required": ["record"],
               "properties": {"record": STORED_RECORD,
                 "content": {"type": ["string", "null"],
                   "description": "With resolve: the referenced text, or null when it cannot be resolved."},
                 "content_base64": {"type": "string",
                   "description": "With resolve: binary referenced content."},
                 "unresolved": {"type": "string",
                   "description": "Why the content could not be resolved."}}}
              """,
              (engine, caller, request) ->
                  engine.read(caller, ReadRequest.fromJson(request)).toJson()),
          operation(
              RETRIEVE,
              "Recall records",
              OperationEffects.READ,
              "Search memory in plain words: put a question or keywords in 'text' (ranked by"
                  + " relevance); narrow with types, tags, filter, dates; use compact and a small"
                  + " limit to keep results short.",
              """
              {"type": "object", "additionalProperties": false, "required": ["scope"],
               "properties": {
                 "scope": SCOPE,
                 "scope_mode": {"type": "string",
                   "enum": ["exact", "descendants", "ancestors", "lineage"], "default": "exact",
                   "description": "descendants, ancestors or lineage widen the scope."},
                 "text": {"type": "string",
                   "description": "A question or keywords, in plain words; results are ranked by relevance."},
                 "mode": {"type": "string", "enum": ["text", "semantic", "hybrid"],
                   "description": "How text is matched, where the server offers more than one way."},
                 "min_score": {"type": "number", "minimum": 0, "maximum": 1,
                   "description": "Only results scoring at least this (semantic and hybrid scores, 0 to 1), above the server's own floor."},
                 "ids": {"type": "array", "items": {"type": "string"}},
                 "types": {"type": "array", "items": {"type": "string"}},
                 "tags": {"type": "array", "items": {"type": "string"}},
                 "tags_mode": {"type": "string", "enum": ["all", "any"], "default": "all"},
                 "filter": {"type": "object",
                   "description": "Equality on data.* and metadata.* fields and provenance.agent, e.g. {\\"data.state\\": \\"open\\"}.",
                   "propertyNames": {"pattern": "^((data|metadata)(\\\\.[^.\\\\s]+)+|provenance\\\\.agent)$"},
                   "additionalProperties": {"type": ["string", "number", "boolean"]}},
                 "created_after": {"type": "string", "format": "date-time"},
                 "created_before": {"type": "string", "format": "date-time"},
                 "updated_after": {"type": "string", "format": "date-time"},
                 "order_by": {"type": "string", "enum": ["relevance", "updated_at", "created_at"]},
                 "order": {"type": "string", "enum": ["asc", "desc"], "default": "desc"},
                 "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50},
                 "cursor": {"type": "string",
                   "description": "The next_cursor of the previous page."}}}
              """,
              """
              {"type": "object", "required": ["records", "total"],
               "properties": {"records": {"type": "array", "items": STORED_RECORD},
                 "total": {"type": "integer", "description": "Every match, not just this page."},
                 "next_cursor": {"type": "string"}}}
              """,
              (engine, caller, request) ->
                  engine.retrieve(caller, RetrieveQuery.fromJson(request)).toJson()),
          operation(
              DELETE,
              "Forget a record",
              OperationEffects.write(true),
              "Delete one record by its scope and id (with history on, it is hidden, not removed).",
              """
              {"type": "object", "additionalProperties": false, "required": ["scope", "id"],
               "properties": {"scope": SCOPE, "id": {"type": "string"},
                 "expected_version": {"type": "integer", "minimum": 1,
                   "description": "Fail with conflict unless the stored version is this one."}}}
              """,
              """
              {"type": "object", "required": ["deleted", "soft"],
               "properties": {"deleted": {"const": true}, "soft": {"type": "boolean"}}}
              """,
              (engine, caller, request) ->
                  engine.delete(caller, DeleteRequest.fromJson(request)).toJson()),
          operation(
              PUT_CONTENT,
              "Keep content by its hash",
              OperationEffects.idempotentWrite(false),
              "Keep a large body by its SHA-256 hash and get a reference to put in a record.",
              """
              {"type": "object", "additionalProperties": false,
               "oneOf": [{"required": ["content"]}, {"required": ["content_base64"]}],
               "properties": {"content": {"type": "string"},
                 "content_base64": {"type": "string", "contentEncoding": "base64"}}}
              """,
              """
              {"type": "object", "required": ["reference"],
               "properties": {"reference": {"$ref": "MEMORY#/$defs/reference"},
                 "scanned_for_secrets": {"type": "boolean",
                   "description": "Text is scanned for credentials; binary content is not."}}}
              """,
              (engine, caller, request) -> {
                PutContentRequest put = PutContentRequest.fromJson(request);
                ObjectNode answer = engine.putContent(caller, put).toResponseJson();
                answer.put("scanned_for_secrets", engine.scansForSecrets(put));
                return answer;
              }),
          operation(
              WHOAMI,
              "Who am I",
              OperationEffects.READ,
              "Who the server takes the caller for: principal, grants, agents, clearance.",
              """
              {"type": "object", "additionalProperties": false, "properties": {}}
              """,
              """
              {"type": "object", "required": ["principal", "grants", "agents", "clearance"],
               "properties": {"principal": {"type": "string"}, "owner": {"type": "boolean"},
                 "grants": {"type": "array"}, "agents": {"type": "array"},
                 "clearance": {"type": "string"}}}
              """,
              (engine, caller, request) -> {
                if (request != null && request.isObject() && !request.isEmpty()) {
                  throw SgmException.invalidRequest(
                      request.properties().iterator().next().getKey(),
                      "is not a field of whoami, which takes {}");
                }
                return caller.grants().toJson(caller.principal().orElse("owner"));
              }),
          operation(
              CHANGES,
              "Changes since a cursor",
              OperationEffects.READ,
              "What changed, in commit order: stores, deletes, restores and lapsed task claims of"
                  + " a scope after a cursor; without since, the cursor of the present to follow from.",
              """
              {"type": "object", "additionalProperties": false, "required": ["scope"],
               "properties": {
                 "scope": SCOPE,
                 "scope_mode": {"type": "string",
                   "enum": ["exact", "descendants", "ancestors", "lineage"], "default": "exact",
                   "description": "descendants, ancestors or lineage widen the scope."},
                 "since": {"type": "string",
                   "description": "An event's cursor or a previous response's next; absent starts at the present."},
                 "types": {"type": "array", "items": {"type": "string"},
                   "description": "Only events of records of these types."},
                 "limit": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}}}
              """,
              """
              {"type": "object", "required": ["events", "next"],
               "properties": {
                 "events": {"type": "array", "items": {"type": "object",
                   "required": ["cursor", "kind", "scope", "id", "type", "version", "agent", "at"],
                   "properties": {"cursor": {"type": "string"},
                     "kind": {"enum": ["stored", "deleted", "restored", "expired"]},
                     "scope": SCOPE, "id": {"type": "string"}, "type": {"type": "string"},
                     "version": {"type": "integer"}, "agent": {"type": "string"},
                     "at": {"type": "string", "format": "date-time"}}}},
                 "next": {"type": "string",
                   "description": "Send as since to resume: nothing is missed or repeated."}}}
              """,
              (engine, caller, request) ->
                  engine.changes(caller, ChangesRequest.fromJson(request)).toJson()),
          operation(
              SCOPES,
              "List scopes",
              OperationEffects.READ,
              "The scopes that hold records, each with its count of live records by type, among"
                  + " the scopes the caller may read; with scope, only that scope and narrower ones.",
              """
              {"type": "object", "additionalProperties": false,
               "properties": {
                 "scope": SCOPE,
                 "limit": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 1000,
                   "description": "The most scopes listed; the totals still count them all."}}}
              """,
              """
              {"type": "object", "required": ["scopes", "total_scopes", "total_records"],
               "properties": {
                 "scopes": {"type": "array", "items": {"type": "object",
                   "required": ["scope", "records", "types"],
                   "properties": {"scope": SCOPE, "records": {"type": "integer"},
                     "types": {"type": "object",
                       "additionalProperties": {"type": "integer"}}}}},
                 "total_scopes": {"type": "integer"},
                 "total_records": {"type": "integer"}}}
              """,
              Engine::scopes),
          operation(
              TOKENS_CREATE,
              "Create an access token",
              OperationEffects.write(false),
              "For the owner: a new bearer token for a principal, with its scope grants, the agents"
                  + " it may act as and its clearance; the token is shown in this answer only.",
              """
              {"type": "object", "additionalProperties": false, "required": ["principal", "grants"],
               "properties": {
                 "principal": {"type": "string", "minLength": 1, "maxLength": 256,
                   "description": "Who the token stands for."},
                 "grants": {"type": "array", "minItems": 1, "items": {"type": "string",
                   "pattern": "^.+:(read|read_write)$"},
                   "description": "Each a scope and its access, e.g. project=alpha:read_write."},
                 "agents": {"type": "array", "items": {"type": "string"},
                   "description": "The agents it may act as ('*' for any); default: the principal."},
                 "clearance": {"type": "string",
                   "enum": ["public", "internal", "confidential", "secret"], "default": "secret"},
                 "expires_in": {"type": "string", "pattern": "^[0-9]{1,6}[dhm]$",
                   "description": "A lifetime such as 30d, 12h or 90m; default none."}}}
              """,
              """
              {"type": "object", "required": ["id", "token", "principal", "grants", "agents",
                 "clearance", "state"],
               "properties": {"id": {"type": "string"}, "token": {"type": "string"},
                 "principal": {"type": "string"}, "grants": {"type": "array"},
                 "agents": {"type": "array"}, "clearance": {"type": "string"},
                 "created_at": {"type": "string"}, "expires_at": {"type": "string"},
                 "state": {"type": "string"}}}
              """,
              (engine, caller, request) -> engine.createToken(caller, request)),
          operation(
              TOKENS_LIST,
              "List access tokens",
              OperationEffects.READ,
              "For the owner: every access token, without its secret, with its grants and state"
                  + " (live, expired or revoked).",
              """
              {"type": "object", "additionalProperties": false, "properties": {}}
              """,
              """
              {"type": "object", "required": ["tokens"],
               "properties": {"tokens": {"type": "array", "items": {"type": "object",
                 "required": ["id", "principal", "state"]}}}}
              """,
              (engine, caller, request) -> engine.listTokens(caller, request)),
          operation(
              TOKENS_REVOKE,
              "Revoke an access token",
              OperationEffects.idempotentWrite(false),
              "For the owner: revokes a token by its id; within seconds it no longer authenticates"
                  + " on any node, and streams opened with it end.",
              """
              {"type": "object", "additionalProperties": false, "required": ["id"],
               "properties": {"id": {"type": "string", "minLength": 1,
                 "description": "The token's id, as tokens.list shows it."}}}
              """,
              """
              {"type": "object", "required": ["id", "revoked"],
               "properties": {"id": {"type": "string"}, "revoked": {"const": true}}}
              """,
              (engine, caller, request) -> engine.revokeToken(caller, request)),
          operation(
              SECRETS_SCAN,
              "Scan stored records for secrets",
              OperationEffects.idempotentWrite(true),
              "For the owner: one page of a search of every scope for credentials already stored:"
                  + " first the records, then the version log where history is kept, then text"
                  + " content. Reports each one's place (scope, id, version or content hash; field,"
                  + " kind, position), never its value; with fix, stores each live record again"
                  + " redacted and rewrites the old versions and hidden rows that hold one (content"
                  + " is reported, not rewritten). Call again with next_cursor until it is absent.",
              """
              {"type": "object", "additionalProperties": false,
               "properties": {
                 "fix": {"type": "boolean", "default": false,
                   "description": "Redact what is found, in history too."},
                 "limit": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 1000,
                   "description": "Records or versions looked at in this call."},
                 "cursor": {"type": "string",
                   "description": "The last answer's next_cursor; absent to start."}}}
              """,
              """
              {"type": "object", "required": ["findings", "phase", "scanned", "fixed", "unfixed"],
               "properties": {
                 "findings": {"type": "array", "items": {"type": "object",
                   "required": ["in", "field", "kind", "position"],
                   "properties": {"scope": SCOPE, "id": {"type": "string"},
                     "version": {"type": "integer"},
                     "hash": {"type": "string", "description": "Of text content (in: content)."},
                     "in": {"enum": ["live", "hidden", "history", "content"]},
                     "field": {"type": "string"}, "kind": {"type": "string"},
                     "position": {"type": "integer"}}}},
                 "phase": {"enum": ["records", "history", "contents"]},
                 "scanned": {"type": "integer"},
                 "fixed": {"type": "integer"},
                 "unfixed": {"type": "integer",
                   "description": "Found and left: without fix, or not fixable (content by hash)."},
                 "total_records": {"type": "integer",
                   "description": "Live records in the store; in the first answer only."},
                 "next_cursor": {"type": "string"}}}
              """,
              (engine, caller, request) -> engine.scanSecrets(caller, request)));

  private static final java.util.Map<String, CoreOperation> BY_NAME =
      ALL.stream()
          .collect(
              java.util.stream.Collectors.toUnmodifiableMap(
                  op -> op.descriptor().name(), op -> op));

  private CoreOperations() {}

  /** The core operation of that wire name, or null. */
  static CoreOperation named(String name) {
    return BY_NAME.get(name);
  }

  /** The descriptors of every core operation, in order. */
  static List<OperationDescriptor> descriptors() {
    return ALL.stream().map(CoreOperation::descriptor).toList();
  }

  private static CoreOperation operation(
      String name,
      String title,
      OperationEffects effects,
      String description,
      String request,
      String response,
      Body body) {
    return new CoreOperation(
        new OperationDescriptor(
            name,
            title,
            description,
            "core",
            schema(request, true),
            schema(response, false),
            effects),
        body);
  }

  /** A schema written in JSON, with the shared parts substituted. */
  private static ObjectNode schema(String text, boolean dialect) {
    String expanded =
        text.replace("STORED_RECORD", STORED_RECORD)
            .replace("SCOPE", SCOPE)
            .replace("\"MEMORY", "\"" + MEMORY);
    ObjectNode parsed = (ObjectNode) Json.parse(expanded);
    if (!dialect) {
      return parsed;
    }
    ObjectNode schema = Json.object();
    schema.put("$schema", JsonSchemas.DIALECT);
    schema.setAll(parsed);
    return schema;
  }
}
