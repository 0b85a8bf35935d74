package dev.sgm.profile.collaboration;

import static dev.sgm.profile.collaboration.DataChecks.bool;
import static dev.sgm.profile.collaboration.DataChecks.oneOf;
import static dev.sgm.profile.collaboration.DataChecks.stringList;
import static dev.sgm.profile.collaboration.DataChecks.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.Scope;
import dev.sgm.api.ScopeMode;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** The {@code rule} type: a standing rule in force in its scope and the scopes under it. */
final class Rules implements OwnedType {
  static final List<String> SEVERITIES = List.of("must", "should", "may");

  private final ProfileContext context;

  Rules(ProfileContext context) {
    this.context = context;
  }

  @Override
  public RecordType recordType() {
    return new RecordType(
        "rule",
        JsonSchemas.object()
            .description("A rule agents follow in a scope and its narrower scopes.")
            .required("statement", JsonSchemas.text(null))
            .required("severity", JsonSchemas.oneOf(null, SEVERITIES))
            .optional("applies_to", JsonSchemas.strings("Path globs it applies to."))
            .optional("active", JsonSchemas.bool("Default true."))
            .build());
  }

  @Override
  public void validate(ObjectNode data) {
    text(data, "statement", true);
    oneOf(data, "severity", SEVERITIES, true);
    stringList(data, "applies_to");
    bool(data, "active");
  }

  @Override
  public List<ProfileOperation> operations() {
    return List.of(
        ProfileOperation.named("rules.active")
            .title("Rules in force")
            .description(
                "Lists the active rules in force for a scope, its broader scopes' included, by severity.")
            .request(Requests.schema(false).build())
            .readOnly()
            .response(
                Responses.list(
                    "rules", "rule", "The active rules in force, must before should before may."))
            .body(this::active));
  }

  private JsonNode active(Caller caller, JsonNode json) {
    Scope scope = Requests.scopeOnly(json);
    List<MemoryRecord> rules = new ArrayList<>();
    for (MemoryRecord rule : Requests.all(context, caller, scope, ScopeMode.ANCESTORS, "rule")) {
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
    return Requests.list("rules", rules);
  }
}
