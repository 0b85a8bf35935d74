package dev.sgm.storage.postgres;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Statement;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.migration.BaseJavaMigration;
import org.flywaydb.core.api.migration.Context;
import org.flywaydb.core.api.output.MigrateResult;

/**
 * Schema migrations of the PostgreSQL store, run by Flyway at start-up (its history table is {@code
 * flyway_schema_history}). Each migration's SQL is a resource of this module, read by a Java
 * migration, so that nothing depends on Flyway scanning the module path for files.
 */
final class PostgresSchema {
  private PostgresSchema() {}

  /** Brings the schema up to date; concurrent nodes starting at once wait on Flyway's lock. */
  static MigrateResult migrate(DataSource dataSource) {
    return Flyway.configure(PostgresSchema.class.getClassLoader())
        .dataSource(dataSource)
        .locations(new String[0])
        .failOnMissingLocations(false)
        .javaMigrations(new V1(), new V2(), new V3(), new V4())
        .load()
        .migrate();
  }

  /** A migration whose SQL is the resource {@code V<n>__<name>.sql} beside this class. */
  private abstract static class SqlResource extends BaseJavaMigration {
    private final String resource;

    SqlResource(String resource) {
      this.resource = resource;
    }

    @Override
    public void migrate(Context context) throws Exception {
      String sql;
      try (InputStream in = PostgresSchema.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new IOException("the migration " + resource + " is missing from the jar");
        }
        sql = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      try (Statement statement = context.getConnection().createStatement()) {
        statement.execute(sql);
      }
    }
  }

  /** Version 1: records, index tables, content, the version log, snapshots and the change log. */
  static final class V1 extends SqlResource {
    V1() {
      super("V1__schema.sql");
    }

    @Override
    public org.flywaydb.core.api.MigrationVersion getVersion() {
      return org.flywaydb.core.api.MigrationVersion.fromVersion("1");
    }

    @Override
    public String getDescription() {
      return "schema";
    }
  }

  /** Version 2: access tokens, and an index of the change log by time for pruning. */
  static final class V2 extends SqlResource {
    V2() {
      super("V2__tokens.sql");
    }

    @Override
    public org.flywaydb.core.api.MigrationVersion getVersion() {
      return org.flywaydb.core.api.MigrationVersion.fromVersion("2");
    }

    @Override
    public String getDescription() {
      return "tokens";
    }
  }

  /** Version 3: who put each content, so that only content its writer put resolves. */
  static final class V3 extends SqlResource {
    V3() {
      super("V3__content_holders.sql");
    }

    @Override
    public org.flywaydb.core.api.MigrationVersion getVersion() {
      return org.flywaydb.core.api.MigrationVersion.fromVersion("3");
    }

    @Override
    public String getDescription() {
      return "content holders";
    }
  }

  /** Version 4: an index of records by type, for queries by type within a scope. */
  static final class V4 extends SqlResource {
    V4() {
      super("V4__records_by_type.sql");
    }

    @Override
    public org.flywaydb.core.api.MigrationVersion getVersion() {
      return org.flywaydb.core.api.MigrationVersion.fromVersion("4");
    }

    @Override
    public String getDescription() {
      return "records by type";
    }
  }
}
