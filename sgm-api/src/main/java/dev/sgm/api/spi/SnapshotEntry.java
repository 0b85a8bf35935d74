package dev.sgm.api.spi;

import dev.sgm.api.Scope;

/**
 * A named point in the write sequence for a scope: nothing is copied, the version log answers what
 * the scope held then.
 *
 * @param descendants whether narrower scopes are part of the snapshot
 * @param seq the last write sequence number the snapshot includes
 */
public record SnapshotEntry(
    Scope scope,
    String name,
    boolean descendants,
    long seq,
    long createdMicros,
    String createdBy) {}
