package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * An active capability profile: the features it advertises, the record types whose {@code data} it
 * owns and validates, and the operations it adds.
 */
public interface Profile {
  /** The features listed under this profile in discovery, e.g. {@code decisions}, {@code tasks}. */
  List<String> features();

  /** The record types whose {@code data} schema this profile owns. */
  default List<String> ownedTypes() {
    return List.of();
  }

  /**
   * Validates a record of one of {@link #ownedTypes()} before it is stored.
   *
   * @throws dev.sgm.api.SgmException {@code invalid_record} naming the field, e.g. {@code
   *     data.status}
   */
  default void validate(ObjectNode record) {}

  /**
   * Called after a record of one of {@link #ownedTypes()} was stored (and changed), inside the same
   * transaction: writes made through {@code writer} commit with it, and an exception undoes all of
   * it. For rules that span records, such as a decision superseding others.
   */
  default void afterStore(RecordWriter writer, dev.sgm.api.MemoryRecord record) {}

  /** The operations this profile adds, invoked by wire name. */
  default List<ProfileOperation> operations() {
    return List.of();
  }

  /**
   * True when the engine must keep history while this profile is active: every written version is
   * logged with its writer and time, and a delete hides a record instead of removing it.
   */
  default boolean keepsHistory() {
    return false;
  }
}
