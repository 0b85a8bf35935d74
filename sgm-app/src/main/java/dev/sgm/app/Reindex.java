package dev.sgm.app;

import dev.sgm.api.SgmException;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code sgm reindex}: rebuilds the search index of a data directory from the records stored there.
 * The index is derived state, so nothing stored changes; the server does this by itself when the
 * index is missing, unreadable or of an older format. When another process holds the directory
 * ({@link SharedDirectory}), that process rebuilds its own index, which it alone writes, and this
 * command shows its progress; other queries keep being answered meanwhile, as in any rebuild.
 */
@Command(
    name = "reindex",
    mixinStandardHelpOptions = true,
    description = "Rebuild the search index from the stored records (with progress).")
final class Reindex implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;
  @Mixin Connection connection;

  @Override
  public Integer call() {
    if (connection.remote() != null) {
      throw SgmException.invalidRequest(
          "--remote", "reindex works on a data directory; run it where the data is");
    }
    PrintWriter out = spec.commandLine().getOut();
    Transfer.Progress progress = new Transfer.Progress(spec.commandLine().getErr(), "reindex");
    long started = System.nanoTime();
    long indexed;
    try (SharedDirectory shared = SharedDirectory.open(connection.config(), "cli")) {
      indexed = shared.reindex(progress::update);
    }
    progress.finish();
    out.printf(
        "reindexed %d records in %d ms%n", indexed, (System.nanoTime() - started) / 1_000_000);
    out.flush();
    return ExitCodes.OK;
  }
}
