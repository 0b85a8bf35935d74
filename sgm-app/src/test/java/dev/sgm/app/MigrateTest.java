package dev.sgm.app;

import static dev.sgm.app.CliRun.sgm;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sgm migrate} on the embedded store: it creates the schema and exits, leaves stored data as
 * it was, and refuses what serve refuses with the same messages and exit codes.
 */
class MigrateTest {
  @TempDir Path dir;

  @Test
  void migrateCreatesTheSchemaAndKeepsWhatIsStored() {
    String data = dir.resolve("data").toString();
    CliRun first = sgm("migrate", "--data", data);
    assertEquals(0, first.code(), first.err());
    assertTrue(first.out().startsWith("the schema of h2 "), first.out());
    assertTrue(Files.isDirectory(dir.resolve("data")), "the store was created");
    CliRun stored =
        sgm(
            "store",
            "--data",
            data,
            "{\"id\":\"n1\",\"type\":\"note\",\"scope\":{\"project\":\"m\"},\"content\":\"kept\","
                + "\"provenance\":{\"agent\":\"me\"}}");
    assertEquals(0, stored.code(), stored.err());
    CliRun again = sgm("migrate", "--data", data);
    assertEquals(0, again.code(), again.err());
    CliRun read = sgm("read", "--data", data, "--scope", "project=m", "--id", "n1");
    assertEquals(0, read.code(), read.err());
    assertTrue(read.out().contains("\"kept\""), read.out());
  }

  @Test
  void migrateRefusesAnUnknownStorageAsServeDoes() {
    String data = dir.resolve("data").toString();
    CliRun migrate = sgm("migrate", "--data", data, "-D", "storage=nosuch");
    assertEquals(ExitCodes.INVALID, migrate.code(), migrate.err());
    assertTrue(migrate.err().contains("unknown storage 'nosuch'"), migrate.err());
    assertTrue(migrate.err().contains("available: [h2"), migrate.err());
    CliRun memory = sgm("migrate", "--memory");
    assertEquals(ExitCodes.INVALID, memory.code(), memory.err());
  }

  @Test
  void migrateHasHelp() {
    CliRun help = sgm("migrate", "--help");
    assertEquals(0, help.code());
    assertTrue(help.out().contains("Usage: sgm migrate"), help.out());
  }
}
