package dev.sgm.profile.collaboration;

import static dev.sgm.profile.collaboration.DataChecks.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordType;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The {@code status} type: where an agent is, as of a time. */
final class Statuses implements OwnedType {
  private final ProfileContext context;

  Statuses(ProfileContext context) {
    this.context = context;
  }

  @Override
  public RecordType recordType() {
    return new RecordType(
        "status",
        JsonSchemas.object()
            .description("Where an agent is, as of a time.")
            .required("state", JsonSchemas.text(null))
            .optional("summary", JsonSchemas.text(null))
            .optional("progress", JsonSchemas.number("From 0 to 1.", 0, 1))
            .required("as_of", JsonSchemas.dateTime(null))
            .build());
  }

  @Override
  public void validate(ObjectNode data) {
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

  @Override
  public List<ProfileOperation> operations() {
    return List.of(
        ProfileOperation.named("status.current")
            .title("Latest status of each agent")
            .description("Lists the latest status of each agent in a scope.")
            .request(Requests.schema(false).build())
            .readOnly()
            .response(
                Responses.list("statuses", "status", "The latest status of each agent, one each."))
            .body(this::current));
  }

  private JsonNode current(Caller caller, JsonNode json) {
    Scope scope = Requests.scopeOnly(json);
    Map<String, MemoryRecord> latest = new LinkedHashMap<>();
    for (MemoryRecord status : Requests.all(context, caller, scope, ScopeMode.EXACT, "status")) {
      String agent = status.provenance().path("agent").asText();
      MemoryRecord known = latest.get(agent);
      if (known == null || asOf(status).compareTo(asOf(known)) >= 0) {
        latest.put(agent, status);
      }
    }
    return Requests.list("statuses", new ArrayList<>(latest.values()));
  }

  private static Instant asOf(MemoryRecord status) {
    Instant instant = Timestamps.tryParse(status.data().path("as_of").asText(null));
    return instant == null ? Instant.EPOCH : instant;
  }
}
