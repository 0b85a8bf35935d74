package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;
import java.util.function.BiFunction;

/**
 * One operation a profile adds, such as {@code tasks.claim}: a wire name and a JSON-in, JSON-out
 * body.
 */
public interface ProfileOperation {
  /** The wire name, {@code <area>.<verb>}, e.g. {@code history.versions}. */
  String name();

  /** What it is for, one sentence; shown in tool listings and help. */
  String description();

  /** Runs the operation. Fails with {@link dev.sgm.api.SgmException}. */
  JsonNode invoke(Caller caller, JsonNode request);

  /** An operation from its name, description and body. */
  static ProfileOperation of(
      String name, String description, BiFunction<Caller, JsonNode, JsonNode> body) {
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
      public JsonNode invoke(Caller caller, JsonNode request) {
        return body.apply(caller, request);
      }
    };
  }
}
