package dev.sgm.profile.collaboration;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordType;
import dev.sgm.api.spi.RecordWriter;
import java.util.List;

/**
 * One record type the collaboration profile owns: its data schema and checks, what storing one does
 * to other records, and the operations on it.
 */
interface OwnedType {
  /** The type's name and the JSON Schema of its {@code data}. */
  RecordType recordType();

  /** Checks a record's {@code data}; throws {@code invalid_record} naming the field at fault. */
  void validate(ObjectNode data);

  /** The rules that span records, run in the storing transaction; none by default. */
  default void afterStore(RecordWriter writer, MemoryRecord record) {}

  /** The operations on records of this type; none by default. */
  default List<ProfileOperation> operations() {
    return List.of();
  }
}
