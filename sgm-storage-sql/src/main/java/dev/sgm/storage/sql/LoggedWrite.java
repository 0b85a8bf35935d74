package dev.sgm.storage.sql;

import dev.sgm.api.Scope;
import dev.sgm.api.spi.WriteLog;

/**
 * One write of a unit of work, waiting for its sequence number: what the change log and the version
 * log will say of it once the unit commits.
 *
 * @param pk the row's key, or null for a removal (whose row is gone)
 * @param created whether the write created the row (or brought it back from deletion), so that the
 *     row's {@code created_seq} is this write's number
 */
public record LoggedWrite(
    Scope scope,
    String id,
    String type,
    long version,
    long micros,
    String document,
    boolean deleted,
    WriteLog log,
    Long pk,
    boolean created) {}
