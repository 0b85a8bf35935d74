package dev.sgm.profile.collaboration;

import static dev.sgm.profile.collaboration.DataChecks.oneOf;
import static dev.sgm.profile.collaboration.DataChecks.state;
import static dev.sgm.profile.collaboration.DataChecks.stringList;
import static dev.sgm.profile.collaboration.DataChecks.text;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.JsonSchemas;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.RecordType;
import dev.sgm.api.spi.RecordWriter;
import java.util.List;

/** The {@code decision} type: stored accepted, a decision marks those it supersedes. */
final class Decisions implements OwnedType {
  static final List<String> STATUSES = List.of("proposed", "accepted", "rejected", "superseded");

  @Override
  public RecordType recordType() {
    return new RecordType(
        "decision",
        JsonSchemas.object()
            .description("A decision; stored accepted, it marks those it supersedes.")
            .required("status", JsonSchemas.oneOf(null, STATUSES))
            .required("rationale", JsonSchemas.text("Why."))
            .optional("alternatives", JsonSchemas.strings("What else was considered."))
            .optional("supersedes", JsonSchemas.strings("Ids of the decisions it replaces."))
            .build());
  }

  @Override
  public void validate(ObjectNode data) {
    oneOf(data, "status", STATUSES, true);
    text(data, "rationale", true);
    stringList(data, "alternatives");
    stringList(data, "supersedes");
  }

  /**
   * An accepted decision marks the decisions it supersedes as superseded, atomically with itself.
   */
  @Override
  public void afterStore(RecordWriter writer, MemoryRecord decision) {
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
}
