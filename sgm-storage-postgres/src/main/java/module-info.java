/**
 * The PostgreSQL store ({@code storage=postgres}): pgjdbc through a HikariCP pool, the schema
 * migrated by Flyway, and a write sequence in commit order across every node that shares the
 * database.
 */
module dev.sgm.storage.postgres {
  requires transitive dev.sgm.api;
  requires dev.sgm.storage.sql;
  requires java.sql;
  requires org.postgresql.jdbc;
  requires com.zaxxer.hikari;
  requires flyway.core;

  provides dev.sgm.api.spi.StorageProvider with
      dev.sgm.storage.postgres.PostgresStorageProvider;
}
