/**
 * What the SQL storages share: the translation of queries into SQL, the mapping of rows, the change
 * and version logs, the export pages, the token table and the transaction skeleton. Each storage
 * supplies only what its database does differently, as a {@code SqlDialect}.
 */
// Exported only to the storages built on it, which are compiled after it.
@SuppressWarnings("module")
module dev.sgm.storage.sql {
  requires transitive dev.sgm.api;
  requires transitive java.sql;

  exports dev.sgm.storage.sql to
      dev.sgm.storage.h2,
      dev.sgm.storage.postgres;
}
