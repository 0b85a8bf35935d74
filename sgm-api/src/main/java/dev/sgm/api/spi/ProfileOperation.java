package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.JsonSchemas;
import java.util.function.BiFunction;

/**
 * One operation a profile adds, such as {@code tasks.claim}: a wire name, a one-line description,
 * the JSON Schema of its request, and a JSON-in, JSON-out body. Discovery publishes the first
 * three, and every transport builds its route, tool or method from them.
 */
public interface ProfileOperation {
  /** The wire name, {@code <area>.<verb>}, e.g. {@code history.versions}. */
  String name();

  /** What it is for, one sentence; shown in tool listings and help. */
  String description();

  /** The JSON Schema (draft 2020-12) of its request; by default any object. */
  default ObjectNode requestSchema() {
    return JsonSchemas.object().build();
  }

  /** Runs the operation. Fails with {@link dev.sgm.api.SgmException}. */
  JsonNode invoke(Caller caller, JsonNode request);

  /** An operation from its name, description, request schema and body. */
  static ProfileOperation of(
      String name,
      String description,
      ObjectNode requestSchema,
      BiFunction<Caller, JsonNode, JsonNode> body) {
    return new ProfileOperation() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public String description() {
        return description;
      }

      @Override
      public ObjectNode requestSchema() {
        return requestSchema.deepCopy();
      }

      @Override
      public JsonNode invoke(Caller caller, JsonNode request) {
        return body.apply(caller, request);
      }
    };
  }
}
