package dev.sgm.profile.collaboration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.RequestReader;
import dev.sgm.api.RetrieveQuery;
import dev.sgm.api.RetrieveResult;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoreResult;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.DataFields;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordType;
import dev.sgm.api.spi.RecordWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The collaboration profile (CONTRACT §7): the data schemas of decision, rule, status, task and
 * handoff, the rules that span records (supersession, dependency cycles), and the operations agents
 * coordinate with. Every change goes through the engine's writer, inside one transaction.
 */
final class CollaborationProfile implements Profile {
  static final List<String> DECISION_STATUSES =
      List.of("proposed", "accepted", "rejected", "superseded");
  static final List<String> SEVERITIES = List.of("must", "should", "may");
  static final List<String> TASK_STATES =
      List.of("open", "in_progress", "blocked", "done", "cancelled");
  static final List<String> HANDOFF_STATES = List.of("open", "accepted", "completed", "cancelled");

  /** The task state changes allowed, from each state. */
  static final Map<String, Set<String>> TRANSITIONS =
      Map.of(
          "open", Set.of("in_progress", "blocked", "cancelled"),
          "in_progress", Set.of("open", "blocked", "done", "cancelled"),
          "blocked", Set.of("open", "in_progress", "cancelled"),
          "done", Set.of("open"),
          "cancelled", Set.of("open"));

  /** The shortest and longest lease a claim may ask for. */
  static final long MIN_LEASE_MS = 100;

  static final long MAX_LEASE_MS = 86_400_000;

  private final ProfileContext context;
  private final Leases leases;

  CollaborationProfile(ProfileContext context) {
    this.context = context;
    this.leases = new Leases(context);
  }

  @Override
  public void start() {
    leases.start();
  }

  @Override
  public void close() {
    leases.close();
  }

  @Override
  public List<String> features() {
    return List.of("decisions", "rules", "status", "tasks", "handoffs");
  }

  @Override
  public List<RecordType> recordTypes() {
    return List.of(
        new RecordType(
            "decision",
            JsonSchemas.object()
                .description("A decision; stored accepted, it marks those it supersedes.")
                .required("status", JsonSchemas.oneOf(null, DECISION_STATUSES))
                .required("rationale", JsonSchemas.text("Why."))
                .optional("alternatives", JsonSchemas.strings("What else was considered."))
                .optional("supersedes", JsonSchemas.strings("Ids of the decisions it replaces."))
                .build()),
        new RecordType(
            "rule",
            JsonSchemas.object()
                .description("A rule agents follow in a scope and its narrower scopes.")
                .required("statement", JsonSchemas.text(null))
                .required("severity", JsonSchemas.oneOf(null, SEVERITIES))
                .optional("applies_to", JsonSchemas.strings("Path globs it applies to."))
                .optional("active", JsonSchemas.bool("Default true."))
                .build()),
        new RecordType(
            "status",
            JsonSchemas.object()
                .description("Where an agent is, as of a time.")
                .required("state", JsonSchemas.text(null))
                .optional("summary", JsonSchemas.text(null))
                .optional("progress", JsonSchemas.number("From 0 to 1.", 0, 1))
                .required("as_of", JsonSchemas.dateTime(null))
                .build()),
        new RecordType(
            "task",
            JsonSchemas.object()
                .description("A unit of work agents claim and move through its states.")
                .required("state", JsonSchemas.oneOf(null, TASK_STATES))
                .optional("assignee", JsonSchemas.text(null))
                .optional(
                    "priority",
                    Json.object()
                        .put("description", "A number or a string.")
                        .set("type", Json.array().add("number").add("string")))
                .optional(
                    "depends_on", JsonSchemas.strings("Ids of tasks that must be done first."))
                .optional(
                    Leases.EXPIRES_AT,
                    JsonSchemas.dateTime(
                        "When a claim made with lease_ms lapses unless renewed by tasks.heartbeat."))
                .optional(
                    Leases.LEASE_MS,
                    JsonSchemas.integer(
                        "The lease a heartbeat renews.", MIN_LEASE_MS, MAX_LEASE_MS))
                .build()),
        new RecordType(
            "handoff",
            JsonSchemas.object()
                .description("Unfinished work passed from one agent to another.")
                .required("from_agent", JsonSchemas.text(null))
                .optional("to_agent", JsonSchemas.text(null))
                .required("state", JsonSchemas.oneOf(null, HANDOFF_STATES))
                .required("summary", JsonSchemas.text(null))
                .optional("next_steps", JsonSchemas.strings(null))
                .optional("context", JsonSchemas.strings("Ids or qualified ids of records."))
                .build()));
  }

  /**
   * A state field of a record that may carry no data (CONTRACT §7): a task or handoff without one
   * is open, a decision proposed.
   */
  static String state(MemoryRecord record, String field, String absent) {
    JsonNode value = record.data().path(field);
    return value.isTextual() ? value.textValue() : absent;
  }

  // ---- data schemas

  @Override
  public void validate(ObjectNode record) {
    ObjectNode data = DataFields.data(record);
    switch (record.path("type").asText()) {
      case "decision" -> {
        oneOf(data, "status", DECISION_STATUSES, true);
        text(data, "rationale", true);
        stringList(data, "alternatives");
        stringList(data, "supersedes");
      }
      case "rule" -> {
        text(data, "statement", true);
        oneOf(data, "severity", SEVERITIES, true);
        stringList(data, "applies_to");
        bool(data, "active");
      }
      case "status" -> {
        text(data, "state", true);
        text(data, "summary", false);
        JsonNode progress = data.get("progress");
        if (progress != null
            && (!progress.isNumber() || progress.doubleValue() < 0 || progress.doubleValue() > 1)) {
          throw SgmException.invalidRecord("data.progress", "must be a number from 0 to 1");
        }
        JsonNode asOf = data.get("as_of");
        if (asOf == null || !asOf.isTextual() || Timestamps.tryParse(asOf.textValue()) == null) {
          throw SgmException.invalidRecord("data.as_of", "is required: an RFC 3339 date-time");
        }
      }
      case "task" -> {
        oneOf(data, "state", TASK_STATES, true);
        text(data, "assignee", false);
        JsonNode priority = data.get("priority");
        if (priority != null && !priority.isNumber() && !priority.isTextual()) {
          throw SgmException.invalidRecord("data.priority", "must be a number or a string");
        }
        stringList(data, "depends_on");
      }
      case "handoff" -> {
        text(data, "from_agent", true);
        text(data, "to_agent", false);
        oneOf(data, "state", HANDOFF_STATES, true);
        text(data, "summary", true);
        stringList(data, "next_steps");
        stringList(data, "context");
      }
      default ->
          throw new IllegalStateException(
              "collaboration does not own the type " + record.path("type").asText());
    }
  }

  private static void text(ObjectNode data, String field, boolean required) {
    DataFields.text(data, field, "data." + field, required);
  }

  private static void oneOf(ObjectNode data, String field, List<String> values, boolean required) {
    text(data, field, required);
    JsonNode node = data.get(field);
    if (node != null && !values.contains(node.textValue())) {
      throw SgmException.invalidRecord(
          "data." + field, "'" + node.textValue() + "' is not one of " + values);
    }
  }

  private static void stringList(ObjectNode data, String field) {
    JsonNode node = data.get(field);
    if (node == null) {
      return;
    }
    if (!node.isArray()) {
      throw SgmException.invalidRecord("data." + field, "must be an array of strings");
    }
    for (int i = 0; i < node.size(); i++) {
      if (!node.get(i).isTextual()) {
        throw SgmException.invalidRecord("data." + field + "[" + i + "]", "must be a string");
      }
    }
  }

  private static void bool(ObjectNode data, String field) {
    JsonNode node = data.get(field);
    if (node != null && !node.isBoolean()) {
      throw SgmException.invalidRecord("data." + field, "must be true or false");
    }
  }

  // ---- rules spanning records, in the storing transaction

  @Override
  public void afterStore(RecordWriter writer, MemoryRecord record) {
    switch (record.type()) {
      case "decision" -> supersede(writer, record);
      case "task" -> rejectCycles(writer, record);
      case "rule", "status", "handoff" -> {}
      default ->
          throw new IllegalStateException("collaboration does not own the type " + record.type());
    }
  }

  /**
   * An accepted decision marks the decisions it supersedes as superseded, atomically with itself.
   */
  private static void supersede(RecordWriter writer, MemoryRecord decision) {
    if (!"accepted".equals(decision.data().path("status").asText())) {
      return;
    }
    Scope scope = decision.scope();
    for (JsonNode id : decision.data().path("supersedes")) {
      MemoryRecord older =
          writer
              .read(scope, id.asText())
              .orElseThrow(
                  () ->
                      SgmException.invalidRecord(
                          "data.supersedes",
                          "no decision " + scope.qualify(id.asText()) + " to supersede"));
      if (!older.type().equals("decision")) {
        throw SgmException.invalidRecord(
            "data.supersedes", id.asText() + " is a " + older.type() + ", not a decision");
      }
      if (!"superseded".equals(state(older, "status", "proposed"))) {
        ObjectNode changed = older.json();
        changed
            .withObjectProperty("data")
            .put("status", "superseded")
            .put("superseded_by", decision.id());
        writer.store(changed);
      }
    }
  }

  /** A task may not depend on itself, directly or through other tasks of its scope. */
  private static void rejectCycles(RecordWriter writer, MemoryRecord task) {
    Scope scope = task.scope();
    List<String> path = new ArrayList<>();
    path.add(task.id());
    if (reaches(writer, scope, task.data().path("depends_on"), task.id(), path, new HashSet<>())) {
      throw SgmException.invalidRecord(
          "data.depends_on", "creates a dependency cycle: " + String.join(" -> ", path));
    }
  }

  private static boolean reaches(
      RecordWriter writer,
      Scope scope,
      JsonNode dependencies,
      String target,
      List<String> path,
      Set<String> seen) {
    for (JsonNode dependency : dependencies) {
      String id = dependency.asText();
      path.add(id);
      if (id.equals(target)) {
        return true;
      }
      if (seen.add(id)) {
        var next = writer.read(scope, id);
        if (next.isPresent()
            && reaches(writer, scope, next.get().data().path("depends_on"), target, path, seen)) {
          return true;
        }
      }
      path.remove(path.size() - 1);
    }
    return false;
  }

  // ---- operations

  @Override
  public List<ProfileOperation> operations() {
    return List.of(
        ProfileOperation.of(
            "tasks.claim",
            "Claims an open task for an agent; fails with conflict when another agent has it. With"
                + " lease_ms the claim lapses unless renewed by tasks.heartbeat.",
            request(true)
                .required("agent", JsonSchemas.text("Who claims it."))
                .optional("lease_ms", leaseSchema())
                .build(),
            this::claim),
        ProfileOperation.of(
            "tasks.heartbeat",
            "Renews a leased claim for another lease; conflict when the claim has lapsed or is"
                + " another agent's.",
            request(true)
                .required("agent", JsonSchemas.text("Who holds the claim."))
                .optional("lease_ms", leaseSchema())
                .build(),
            this::heartbeat),
        ProfileOperation.of(
            "tasks.transition",
            "Moves a task to another state, when that change is allowed.",
            request(true).required("to", JsonSchemas.oneOf("The new state.", TASK_STATES)).build(),
            this::transition),
        ProfileOperation.of(
            "tasks.ready",
            "Lists the open, unassigned tasks whose dependencies are all done.",
            request(false).build(),
            this::ready),
        ProfileOperation.of(
            "rules.active",
            "Lists the active rules in force for a scope, its broader scopes' included, by severity.",
            request(false).build(),
            this::activeRules),
        ProfileOperation.of(
            "status.current",
            "Lists the latest status of each agent in a scope.",
            request(false).build(),
            this::currentStatus),
        ProfileOperation.of(
            "handoffs.accept",
            "Accepts an open handoff for an agent.",
            request(true).required("agent", JsonSchemas.text("Who takes the work over.")).build(),
            this::acceptHandoff),
        ProfileOperation.of(
            "handoffs.complete",
            "Completes an accepted handoff.",
            request(true).build(),
            this::completeHandoff),
        ProfileOperation.of(
            "handoffs.resume",
            "Returns a handoff with every record it references, to pick the work up in one call.",
            request(true).build(),
            this::resume));
  }

  private static ObjectNode leaseSchema() {
    return JsonSchemas.integer(
        "How long the claim holds without a heartbeat, in milliseconds.",
        MIN_LEASE_MS,
        MAX_LEASE_MS);
  }

  /** A request naming a scope and, for operations on one record, its id. */
  private static JsonSchemas.ObjectSchema request(boolean withId) {
    JsonSchemas.ObjectSchema schema =
        JsonSchemas.object()
            .additionalProperties(false)
            .required("scope", JsonSchemas.scope("The scope, e.g. {\"project\": \"myproject\"}."));
    return withId ? schema.required("id", JsonSchemas.text("The record's id.")) : schema;
  }

  private record Target(Scope scope, String id, RequestReader rest) {}

  private static Target target(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    return new Target(reader.requireScope("scope"), reader.requireString("id"), reader);
  }

  private static MemoryRecord load(RecordWriter writer, Scope scope, String id, String type) {
    MemoryRecord record =
        writer
            .read(scope, id)
            .orElseThrow(
                () -> new SgmException(ErrorCode.NOT_FOUND, "no record " + scope.qualify(id)));
    if (!record.type().equals(type)) {
      throw SgmException.invalidRequest(
          "id", scope.qualify(id) + " is a " + record.type() + ", not a " + type);
    }
    return record;
  }

  private JsonNode claim(Caller caller, JsonNode json) {
    Target t = target(json);
    String agent = t.rest().requireString("agent");
    Long leaseMs = t.rest().optionalLong("lease_ms", MIN_LEASE_MS, MAX_LEASE_MS);
    t.rest().finish();
    // A lapsed claim is given back first (its own event), so it can be claimed again at once.
    leases.expireIfLapsed(caller, t.scope(), t.id());
    JsonNode claimed =
        context.atomically(
            caller,
            writer -> {
              MemoryRecord task = load(writer, t.scope(), t.id(), "task");
              String assignee = task.data().path("assignee").asText(null);
              if (assignee != null && !assignee.equals(agent)) {
                throw new SgmException(
                    ErrorCode.CONFLICT,
                    "task " + task.qualifiedId() + " is claimed by " + assignee);
              }
              String state = state(task, "state", "open");
              if (!state.equals("open")
                  && !(agent.equals(assignee) && state.equals("in_progress"))) {
                throw new SgmException(
                    ErrorCode.CONFLICT,
                    "task " + task.qualifiedId() + " is " + state + ", not open");
              }
              ObjectNode changed = task.json();
              ObjectNode data = changed.withObjectProperty("data");
              data.put("assignee", agent).put("state", "in_progress");
              leases.grant(data, leaseMs);
              return writer.store(changed).toJson();
            });
    leases.watch(t.scope(), t.id(), claimed.path("record"));
    return claimed;
  }

  private JsonNode heartbeat(Caller caller, JsonNode json) {
    Target t = target(json);
    String agent = t.rest().requireString("agent");
    Long leaseMs = t.rest().optionalLong("lease_ms", MIN_LEASE_MS, MAX_LEASE_MS);
    t.rest().finish();
    boolean lapsed = leases.expireIfLapsed(caller, t.scope(), t.id());
    JsonNode renewed =
        context.atomically(
            caller,
            writer -> {
              MemoryRecord task = load(writer, t.scope(), t.id(), "task");
              String assignee = task.data().path("assignee").asText(null);
              String state = state(task, "state", "open");
              if (!agent.equals(assignee) || !state.equals("in_progress")) {
                throw new SgmException(
                    ErrorCode.CONFLICT,
                    "task "
                        + task.qualifiedId()
                        + (lapsed
                            ? " was given back: its lease lapsed before this heartbeat"
                            : assignee == null
                                ? " is not claimed (" + state + ")"
                                : " is claimed by " + assignee)
                        + "; claim it again with tasks.claim");
              }
              if (!task.data().has(Leases.EXPIRES_AT)) {
                throw new SgmException(
                    ErrorCode.CONFLICT,
                    "task "
                        + task.qualifiedId()
                        + " was claimed without lease_ms, so there is no lease to renew");
              }
              ObjectNode changed = task.json();
              ObjectNode data = changed.withObjectProperty("data");
              leases.grant(data, leaseMs != null ? leaseMs : data.path(Leases.LEASE_MS).asLong());
              return writer.store(changed).toJson();
            });
    leases.watch(t.scope(), t.id(), renewed.path("record"));
    return renewed;
  }

  private JsonNode transition(Caller caller, JsonNode json) {
    Target t = target(json);
    String to = t.rest().requireString("to");
    t.rest().finish();
    if (!TASK_STATES.contains(to)) {
      throw SgmException.invalidRequest("to", "'" + to + "' is not one of " + TASK_STATES);
    }
    return context.atomically(
        caller,
        writer -> {
          MemoryRecord task = load(writer, t.scope(), t.id(), "task");
          String from = state(task, "state", "open");
          if (!TRANSITIONS.getOrDefault(from, Set.of()).contains(to)) {
            throw new SgmException(
                ErrorCode.CONFLICT,
                "task "
                    + task.qualifiedId()
                    + " cannot go from "
                    + from
                    + " to "
                    + to
                    + "; from "
                    + from
                    + " it can go to "
                    + TRANSITIONS.getOrDefault(from, Set.of()).stream().sorted().toList());
          }
          ObjectNode changed = task.json();
          ObjectNode data = changed.withObjectProperty("data");
          data.put("state", to);
          if (to.equals("open")) {
            data.remove("assignee");
          }
          if (!to.equals("in_progress")) {
            Leases.drop(data);
          }
          return writer.store(changed).toJson();
        });
  }

  /** Every live record of {@code type} in the scope (and, with the mode, its relatives). */
  private List<MemoryRecord> all(Caller caller, Scope scope, ScopeMode mode, String type) {
    List<MemoryRecord> records = new ArrayList<>();
    String cursor = null;
    do {
      RetrieveResult page =
          context
              .service()
              .retrieve(
                  caller,
                  RetrieveQuery.builder(scope)
                      .scopeMode(mode)
                      .types(List.of(type))
                      .orderBy(RetrieveQuery.OrderBy.CREATED_AT)
                      .ascending(true)
                      .limit(RetrieveQuery.MAX_LIMIT)
                      .cursor(cursor)
                      .build());
      records.addAll(page.records());
      cursor = page.nextCursor();
    } while (cursor != null);
    return records;
  }

  private static Scope scopeOnly(JsonNode json) {
    RequestReader reader = RequestReader.of(json);
    Scope scope = reader.requireScope("scope");
    reader.finish();
    return scope;
  }

  private static ObjectNode list(String field, List<MemoryRecord> records) {
    ObjectNode response = Json.object();
    ArrayNode array = response.putArray(field);
    records.forEach(r -> array.add(r.view()));
    return response;
  }

  private JsonNode ready(Caller caller, JsonNode json) {
    Scope scope = scopeOnly(json);
    List<MemoryRecord> tasks = all(caller, scope, ScopeMode.EXACT, "task");
    boolean gaveBack = false;
    for (MemoryRecord task : tasks) {
      if (leases.lapsed(task)) {
        gaveBack |= leases.expireIfLapsed(caller, scope, task.id());
      }
    }
    if (gaveBack) {
      tasks = all(caller, scope, ScopeMode.EXACT, "task");
    }
    Map<String, String> states = new HashMap<>();
    tasks.forEach(t -> states.put(t.id(), state(t, "state", "open")));
    List<MemoryRecord> ready = new ArrayList<>();
    for (MemoryRecord task : tasks) {
      boolean open =
          state(task, "state", "open").equals("open") && !task.data().hasNonNull("assignee");
      boolean unblocked = true;
      for (JsonNode dependency : task.data().path("depends_on")) {
        unblocked &= "done".equals(states.get(dependency.asText()));
      }
      if (open && unblocked) {
        ready.add(task);
      }
    }
    return list("tasks", ready);
  }

  private JsonNode activeRules(Caller caller, JsonNode json) {
    Scope scope = scopeOnly(json);
    List<MemoryRecord> rules = new ArrayList<>();
    for (MemoryRecord rule : all(caller, scope, ScopeMode.ANCESTORS, "rule")) {
      if (rule.data().path("active").asBoolean(true)) {
        rules.add(rule);
      }
    }
    rules.sort(
        Comparator.comparingInt(
            r -> {
              // A rule without data has no severity: it sorts after those with one.
              int rank = SEVERITIES.indexOf(r.data().path("severity").asText());
              return rank < 0 ? SEVERITIES.size() : rank;
            }));
    return list("rules", rules);
  }

  private JsonNode currentStatus(Caller caller, JsonNode json) {
    Scope scope = scopeOnly(json);
    Map<String, MemoryRecord> latest = new LinkedHashMap<>();
    for (MemoryRecord status : all(caller, scope, ScopeMode.EXACT, "status")) {
      String agent = status.provenance().path("agent").asText();
      MemoryRecord known = latest.get(agent);
      if (known == null || asOf(status).compareTo(asOf(known)) >= 0) {
        latest.put(agent, status);
      }
    }
    return list("statuses", new ArrayList<>(latest.values()));
  }

  private static java.time.Instant asOf(MemoryRecord status) {
    java.time.Instant instant = Timestamps.tryParse(status.data().path("as_of").asText(null));
    return instant == null ? java.time.Instant.EPOCH : instant;
  }

  private JsonNode acceptHandoff(Caller caller, JsonNode json) {
    Target t = target(json);
    String agent = t.rest().requireString("agent");
    t.rest().finish();
    return context.atomically(
        caller,
        writer -> {
          MemoryRecord handoff = load(writer, t.scope(), t.id(), "handoff");
          JsonNode data = handoff.data();
          if (!state(handoff, "state", "open").equals("open")) {
            throw new SgmException(
                ErrorCode.CONFLICT,
                "handoff "
                    + handoff.qualifiedId()
                    + " is "
                    + state(handoff, "state", "open")
                    + ", not open");
          }
          String to = data.path("to_agent").asText(null);
          if (to != null && !to.equals(agent)) {
            throw new SgmException(
                ErrorCode.CONFLICT, "handoff " + handoff.qualifiedId() + " is for " + to);
          }
          ObjectNode changed = handoff.json();
          changed.withObjectProperty("data").put("state", "accepted").put("to_agent", agent);
          return writer.store(changed).toJson();
        });
  }

  private JsonNode completeHandoff(Caller caller, JsonNode json) {
    Target t = target(json);
    t.rest().finish();
    return context.atomically(
        caller,
        writer -> {
          MemoryRecord handoff = load(writer, t.scope(), t.id(), "handoff");
          if (!state(handoff, "state", "open").equals("accepted")) {
            throw new SgmException(
                ErrorCode.CONFLICT,
                "handoff "
                    + handoff.qualifiedId()
                    + " is "
                    + state(handoff, "state", "open")
                    + ", not accepted");
          }
          ObjectNode changed = handoff.json();
          changed.withObjectProperty("data").put("state", "completed");
          StoreResult result = writer.store(changed);
          return result.toJson();
        });
  }

  /** The handoff and every record it references: its context and links, by id or qualified id. */
  private JsonNode resume(Caller caller, JsonNode json) {
    Target t = target(json);
    t.rest().finish();
    return context.atomically(
        caller,
        writer -> {
          MemoryRecord handoff = load(writer, t.scope(), t.id(), "handoff");
          ObjectNode response = Json.object();
          response.set("handoff", handoff.view());
          ArrayNode records = response.putArray("records");
          ArrayNode missing = response.putArray("missing");
          Set<String> seen = new HashSet<>();
          List<String> references = new ArrayList<>();
          handoff.data().path("context").forEach(r -> references.add(r.asText()));
          handoff.view().path("links").forEach(r -> references.add(r.asText()));
          for (String reference : references) {
            Scope scope = t.scope();
            String id = reference;
            if (reference.contains("=") && reference.contains(":")) {
              var qualified = Scope.parseQualified(reference);
              scope = qualified.getKey();
              id = qualified.getValue();
            }
            if (!seen.add(scope.qualify(id))) {
              continue;
            }
            var record = writer.read(scope, id);
            if (record.isPresent()) {
              records.add(record.get().view());
            } else {
              missing.add(reference);
            }
          }
          return response;
        });
  }
}
