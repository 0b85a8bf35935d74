package dev.sgm.profile.collaboration;

import static dev.sgm.profile.collaboration.DataChecks.oneOf;
import static dev.sgm.profile.collaboration.DataChecks.state;
import static dev.sgm.profile.collaboration.DataChecks.stringList;
import static dev.sgm.profile.collaboration.DataChecks.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.OperationEffects;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.StoreResult;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordType;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@code handoff} type: unfinished work passed from one agent to another, accepted, completed,
 * and resumed with every record it references in one call.
 */
final class Handoffs implements OwnedType {
  static final List<String> STATES = List.of("open", "accepted", "completed", "cancelled");

  private final ProfileContext context;

  Handoffs(ProfileContext context) {
    this.context = context;
  }

  @Override
  public RecordType recordType() {
    return new RecordType(
        "handoff",
        JsonSchemas.object()
            .description("Unfinished work passed from one agent to another.")
            .required("from_agent", JsonSchemas.text(null))
            .optional("to_agent", JsonSchemas.text(null))
            .required("state", JsonSchemas.oneOf(null, STATES))
            .required("summary", JsonSchemas.text(null))
            .optional("next_steps", JsonSchemas.strings(null))
            .optional("context", JsonSchemas.strings("Ids or qualified ids of records."))
            .build());
  }

  @Override
  public void validate(ObjectNode data) {
    text(data, "from_agent", true);
    text(data, "to_agent", false);
    oneOf(data, "state", STATES, true);
    text(data, "summary", true);
    stringList(data, "next_steps");
    stringList(data, "context");
  }

  @Override
  public List<ProfileOperation> operations() {
    return List.of(
        ProfileOperation.named("handoffs.accept")
            .title("Accept a handoff")
            .description("Accepts an open handoff for an agent.")
            .request(
                Requests.schema(true)
                    .required("agent", JsonSchemas.text("Who takes the work over."))
                    .build())
            .effects(OperationEffects.WRITE)
            .response(Responses.stored("handoff"))
            .body(this::accept),
        ProfileOperation.named("handoffs.complete")
            .title("Complete a handoff")
            .description("Completes an accepted handoff.")
            .request(Requests.schema(true).build())
            .effects(OperationEffects.WRITE)
            .response(Responses.stored("handoff"))
            .body(this::complete),
        ProfileOperation.named("handoffs.resume")
            .title("Resume from a handoff")
            .description(
                "Returns a handoff with every record it references, to pick the work up in one call.")
            .request(Requests.schema(true).build())
            .readOnly()
            .response(Responses.resume())
            .body(this::resume));
  }

  private JsonNode accept(Caller caller, JsonNode json) {
    Requests.Target t = Requests.target(json);
    String agent = t.rest().requireString("agent");
    caller.requireAgent(agent, "agent");
    t.rest().finish();
    return context.atomically(
        caller,
        writer -> {
          MemoryRecord handoff = Requests.load(writer, t.scope(), t.id(), "handoff");
          JsonNode data = handoff.data();
          requireState(handoff, "open");
          String to = data.path("to_agent").asText(null);
          if (to != null && !to.equals(agent)) {
            throw new SgmException(
                ErrorCode.CONFLICT, "handoff " + handoff.qualifiedId() + " is for " + to);
          }
          ObjectNode changed = handoff.json();
          changed.withObjectProperty("data").put("state", "accepted").put("to_agent", agent);
          return writer.as(agent).store(changed).toJson();
        });
  }

  private JsonNode complete(Caller caller, JsonNode json) {
    Requests.Target t = Requests.target(json);
    t.rest().finish();
    return context.atomically(
        caller,
        writer -> {
          MemoryRecord handoff = Requests.load(writer, t.scope(), t.id(), "handoff");
          requireState(handoff, "accepted");
          ObjectNode changed = handoff.json();
          changed.withObjectProperty("data").put("state", "completed");
          StoreResult result = writer.store(changed);
          return result.toJson();
        });
  }

  /** Conflict unless the handoff is in the state an operation moves it on from. */
  private static void requireState(MemoryRecord handoff, String expected) {
    String state = state(handoff, "state", "open");
    if (!state.equals(expected)) {
      throw new SgmException(
          ErrorCode.CONFLICT,
          "handoff " + handoff.qualifiedId() + " is " + state + ", not " + expected);
    }
  }

  /** The handoff and every record it references: its context and links, by id or qualified id. */
  private JsonNode resume(Caller caller, JsonNode json) {
    Requests.Target t = Requests.target(json);
    t.rest().finish();
    return context.atomically(
        caller,
        writer -> {
          MemoryRecord handoff = Requests.load(writer, t.scope(), t.id(), "handoff");
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
