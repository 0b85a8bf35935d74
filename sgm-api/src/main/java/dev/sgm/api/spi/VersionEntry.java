package dev.sgm.api.spi;

import dev.sgm.api.Scope;

/**
 * One entry of the version log: a record as written at one point of the write sequence, or its
 * deletion (a tombstone carrying the document that was deleted).
 *
 * @param seq the write sequence number, which orders all entries of all records
 * @param writtenMicros when it was written, microseconds since the epoch
 * @param writer who wrote it: the authenticated principal, else the record's provenance agent
 * @param deleted true for a tombstone
 */
public record VersionEntry(
    Scope scope,
    String id,
    long version,
    long seq,
    long writtenMicros,
    String writer,
    boolean deleted,
    String document) {}
