package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Caller;

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
}
