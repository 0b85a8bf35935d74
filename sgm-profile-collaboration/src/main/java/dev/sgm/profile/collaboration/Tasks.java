package dev.sgm.profile.collaboration;

import static dev.sgm.profile.collaboration.DataChecks.oneOf;
import static dev.sgm.profile.collaboration.DataChecks.state;
import static dev.sgm.profile.collaboration.DataChecks.stringList;
import static dev.sgm.profile.collaboration.DataChecks.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.OperationEffects;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordType;
import dev.sgm.api.spi.RecordWriter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code task} type: a unit of work agents claim (atomically, optionally on a lease), move
 * through its legal states, and order by dependencies, which may not form a cycle.
 */
final class Tasks implements OwnedType {
  static final List<String> STATES = List.of("open", "in_progress", "blocked", "done", "cancelled");

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

  Tasks(ProfileContext context, Leases leases) {
    this.context = context;
    this.leases = leases;
  }

  @Override
  public RecordType recordType() {
    return new RecordType(
        "task",
        JsonSchemas.object()
            .description("A unit of work agents claim and move through its states.")
            .required("state", JsonSchemas.oneOf(null, STATES))
            .optional("assignee", JsonSchemas.text(null))
            .optional(
                "priority",
                Json.object()
                    .put("description", "A number or a string.")
                    .set("type", Json.array().add("number").add("string")))
            .optional("depends_on", JsonSchemas.strings("Ids of tasks that must be done first."))
            .optional(
                Leases.EXPIRES_AT,
                JsonSchemas.dateTime(
                    "When a claim made with lease_ms lapses unless renewed by tasks.heartbeat."))
            .optional(
                Leases.LEASE_MS,
                JsonSchemas.integer("The lease a heartbeat renews.", MIN_LEASE_MS, MAX_LEASE_MS))
            .build());
  }

  @Override
  public void validate(ObjectNode data) {
    oneOf(data, "state", STATES, true);
    text(data, "assignee", false);
    JsonNode priority = data.get("priority");
    if (priority != null && !priority.isNumber() && !priority.isTextual()) {
      throw SgmException.invalidRecord("data.priority", "must be a number or a string");
    }
    stringList(data, "depends_on");
  }

  /** A task may not depend on itself, directly or through other tasks of its scope. */
  @Override
  public void afterStore(RecordWriter writer, MemoryRecord task) {
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

  @Override
  public List<ProfileOperation> operations() {
    return List.of(
        ProfileOperation.named("tasks.claim")
            .title("Claim a task")
            .description(
                "Claims an open task for an agent; fails with conflict when another agent has it. With"
                    + " lease_ms the claim lapses unless renewed by tasks.heartbeat.")
            .request(
                Requests.schema(true)
                    .required("agent", JsonSchemas.text("Who claims it."))
                    .optional("lease_ms", leaseSchema())
                    .build())
            .effects(OperationEffects.WRITE)
            .response(Responses.stored("task"))
            .body(this::claim),
        ProfileOperation.named("tasks.heartbeat")
            .title("Renew a task claim")
            .description(
                "Renews a leased claim for another lease; conflict when the claim has lapsed or is"
                    + " another agent's.")
            .request(
                Requests.schema(true)
                    .required("agent", JsonSchemas.text("Who holds the claim."))
                    .optional("lease_ms", leaseSchema())
                    .build())
            .effects(OperationEffects.WRITE)
            .response(Responses.stored("task"))
            .body(this::heartbeat),
        ProfileOperation.named("tasks.transition")
            .title("Move a task to another state")
            .description("Moves a task to another state, when that change is allowed.")
            .request(
                Requests.schema(true)
                    .required("to", JsonSchemas.oneOf("The new state.", STATES))
                    .build())
            .effects(OperationEffects.WRITE)
            .response(Responses.stored("task"))
            .body(this::transition),
        ProfileOperation.named("tasks.ready")
            .title("Tasks ready to start")
            .description("Lists the open, unassigned tasks whose dependencies are all done.")
            .request(Requests.schema(false).build())
            .readOnly()
            .response(
                Responses.list(
                    "tasks",
                    "task",
                    "Open, unassigned tasks whose dependencies are all done, oldest first."))
            .body(this::ready));
  }

  private static ObjectNode leaseSchema() {
    return JsonSchemas.integer(
        "How long the claim holds without a heartbeat, in milliseconds.",
        MIN_LEASE_MS,
        MAX_LEASE_MS);
  }

  private JsonNode claim(Caller caller, JsonNode json) {
    Requests.Target t = Requests.target(json);
    String agent = t.rest().requireString("agent");
    caller.requireAgent(agent, "agent");
    Long leaseMs = t.rest().optionalLong("lease_ms", MIN_LEASE_MS, MAX_LEASE_MS);
    t.rest().finish();
    // A lapsed claim is given back first (its own event), so it can be claimed again at once.
    leases.expireIfLapsed(caller, t.scope(), t.id());
    JsonNode claimed =
        context.atomically(
            caller,
            writer -> {
              MemoryRecord task = Requests.load(writer, t.scope(), t.id(), "task");
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
              return writer.as(agent).store(changed).toJson();
            });
    leases.watch(t.scope(), t.id(), claimed.path("record"));
    return claimed;
  }

  private JsonNode heartbeat(Caller caller, JsonNode json) {
    Requests.Target t = Requests.target(json);
    String agent = t.rest().requireString("agent");
    caller.requireAgent(agent, "agent");
    Long leaseMs = t.rest().optionalLong("lease_ms", MIN_LEASE_MS, MAX_LEASE_MS);
    t.rest().finish();
    boolean lapsed = leases.expireIfLapsed(caller, t.scope(), t.id());
    JsonNode renewed =
        context.atomically(
            caller,
            writer -> {
              MemoryRecord task = Requests.load(writer, t.scope(), t.id(), "task");
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
              return writer.as(agent).store(changed).toJson();
            });
    leases.watch(t.scope(), t.id(), renewed.path("record"));
    return renewed;
  }

  private JsonNode transition(Caller caller, JsonNode json) {
    Requests.Target t = Requests.target(json);
    String to = t.rest().requireString("to");
    t.rest().finish();
    if (!STATES.contains(to)) {
      throw SgmException.invalidRequest("to", "'" + to + "' is not one of " + STATES);
    }
    return context.atomically(
        caller,
        writer -> {
          MemoryRecord task = Requests.load(writer, t.scope(), t.id(), "task");
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

  private JsonNode ready(Caller caller, JsonNode json) {
    Scope scope = Requests.scopeOnly(json);
    List<MemoryRecord> tasks = Requests.all(context, caller, scope, ScopeMode.EXACT, "task");
    boolean gaveBack = false;
    for (MemoryRecord task : tasks) {
      if (leases.lapsed(task)) {
        gaveBack |= leases.expireIfLapsed(caller, scope, task.id());
      }
    }
    if (gaveBack) {
      tasks = Requests.all(context, caller, scope, ScopeMode.EXACT, "task");
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
    return Requests.list("tasks", ready);
  }
}
