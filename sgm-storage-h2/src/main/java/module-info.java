/**
 * The embedded H2 store, the default storage plugin ({@code storage=h2}): a database file under the
 * data directory, or a private in-memory database for throw-away runs.
 */
// The database's name ends in a digit; the module is named after it all the same.
@SuppressWarnings("module")
module dev.sgm.storage.h2 {
  requires transitive dev.sgm.api;
  requires dev.sgm.storage.sql;
  requires java.sql;
  requires com.h2database;

  provides dev.sgm.api.spi.StorageProvider with
      dev.sgm.storage.h2.H2StorageProvider;
}
