package dev.sgm.api;

import java.util.Objects;

/**
 * One detail of an error: the field at fault (a dotted path such as {@code scope.project} or {@code
 * records[2].id}) and why it was refused.
 */
public record FieldError(String field, String reason) {
  public FieldError {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(reason, "reason");
  }
}
