package dev.sgm.profile.collaboration;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.spi.DataFields;
import dev.sgm.api.spi.Profile;
import dev.sgm.api.spi.ProfileContext;
import dev.sgm.api.spi.ProfileOperation;
import dev.sgm.api.spi.RecordType;
import dev.sgm.api.spi.RecordWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The collaboration profile (CONTRACT §7): decision, rule, status, task and handoff, each with its
 * data schema, the rules that span records (supersession, dependency cycles) and the operations
 * agents coordinate with, in a class of its own; this one hands each record to its type. Every
 * change goes through the engine's writer, inside one transaction.
 */
final class CollaborationProfile implements Profile {
  private final Leases leases;
  private final Rules rules;
  private final Statuses statuses;
  private final Tasks tasks;
  private final Handoffs handoffs;
  private final Briefs briefs;

  /** The owned types by name, in the order discovery lists them. */
  private final Map<String, OwnedType> types = new LinkedHashMap<>();

  CollaborationProfile(ProfileContext context) {
    this.leases = new Leases(context);
    this.rules = new Rules(context);
    this.statuses = new Statuses(context);
    this.tasks = new Tasks(context, leases);
    this.handoffs = new Handoffs(context);
    this.briefs = new Briefs(context);
    for (OwnedType type : List.of(new Decisions(), rules, statuses, tasks, handoffs)) {
      types.put(type.recordType().name(), type);
    }
  }

  @Override
  public void start() {
    leases.start();
  }

  @Override
  public void close() {
    leases.close();
  }

  @Override
  public List<String> features() {
    return List.of("decisions", "rules", "status", "tasks", "handoffs");
  }

  @Override
  public List<RecordType> recordTypes() {
    return types.values().stream().map(OwnedType::recordType).toList();
  }

  @Override
  public void validate(ObjectNode record) {
    owned(record.path("type").asText()).validate(DataFields.data(record));
  }

  @Override
  public void afterStore(RecordWriter writer, MemoryRecord record) {
    owned(record.type()).afterStore(writer, record);
  }

  @Override
  public List<ProfileOperation> operations() {
    return Stream.concat(
            Stream.of(tasks, rules, statuses, handoffs).flatMap(type -> type.operations().stream()),
            Stream.of(briefs.operation()))
        .toList();
  }

  /** The engine hands a profile only the types it declared, so any other is a bug. */
  private OwnedType owned(String type) {
    OwnedType owned = types.get(type);
    if (owned == null) {
      throw new IllegalStateException("collaboration does not own the type " + type);
    }
    return owned;
  }
}
