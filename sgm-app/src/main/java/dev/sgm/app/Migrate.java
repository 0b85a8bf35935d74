package dev.sgm.app;

import dev.sgm.api.SgmException;
import dev.sgm.core.SgmRuntime;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code sgm migrate}: brings the configured storage's schema up to date and exits, so that an
 * operator can migrate a shared database before starting (or upgrading) the nodes. {@code serve}
 * migrates on start too; this runs the same code, with the same checks of the connection settings
 * and the same messages and exit codes when they are wrong.
 */
@Command(
    name = "migrate",
    mixinStandardHelpOptions = true,
    description =
        "Bring the storage's schema up to date (as serve does when it starts), then exit: e.g."
            + " -D storage=postgres -D storage.postgres.url=jdbc:postgresql://db:5432/sgm.")
final class Migrate implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  @Override
  public Integer call() {
    if (connection.remote() != null) {
      throw SgmException.invalidRequest(
          "--remote", "migrate works on the storage itself; run it with the storage's settings");
    }
    if (connection.memory()) {
      throw SgmException.invalidRequest("--memory", "an in-memory store has nothing to migrate");
    }
    long started = System.nanoTime();
    String where = SgmRuntime.migrateStorage(connection.config());
    PrintWriter out = spec.commandLine().getOut();
    out.printf(
        "the schema of %s is up to date (%d ms)%n",
        where, (System.nanoTime() - started) / 1_000_000);
    out.flush();
    return ExitCodes.OK;
  }
}
