package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * An active capability profile: the features it advertises, the record types whose {@code data} it
 * owns (with their schemas), and the operations it adds.
 */
public interface Profile {
  /** The features listed under this profile in discovery, e.g. {@code decisions}, {@code tasks}. */
  List<String> features();

  /** The record types whose {@code data} this profile owns, with their data schemas. */
  default List<RecordType> recordTypes() {
    return List.of();
  }

  /**
   * Checks the {@code data} of a record of one of {@link #recordTypes()}, without changing
   * anything; called only when the record has {@code data} (CONTRACT §7: a record of an owned type
   * without {@code data} is a valid core record).
   *
   * @throws dev.sgm.api.SgmException {@code invalid_record} naming the field, e.g. {@code
   *     data.status}
   */
  default void validate(ObjectNode record) {}

  /**
   * Adds what this profile derives to a record that {@link #validate} accepted, before it is
   * stored: for example a diff's changed files from its patch. The one hook that may change the
   * record.
   */
  default void complete(ObjectNode record) {}

  /**
   * Called after a record of one of {@link #recordTypes()} was stored (and changed), inside the
   * same transaction: writes made through {@code writer} commit with it, and an exception undoes
   * all of it. For rules that span records, such as a decision superseding others.
   */
  default void afterStore(RecordWriter writer, dev.sgm.api.MemoryRecord record) {}

  /** Detectors of credential formats this profile knows, run on every write beside the core's. */
  default List<SecretDetector> secretDetectors() {
    return List.of();
  }

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

  /**
   * Called once the engine is up (its operations and the change feed answer): background work such
   * as lapsing task leases starts here.
   */
  default void start() {}

  /** Called as the engine shuts down, before storage closes: background work stops here. */
  default void close() {}
}
