package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * A record type a profile owns: its name and the JSON Schema of its {@code data}, which discovery
 * publishes under {@code record_types}.
 */
public record RecordType(String name, ObjectNode dataSchema) {}
