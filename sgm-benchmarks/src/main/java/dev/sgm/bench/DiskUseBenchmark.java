package dev.sgm.bench;

import dev.sgm.transport.mcp.McpStdioClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What a burst of single-record stores leaves on the disk of the embedded store, and how long the
 * next holder then takes to open it: an MCP stdio session ({@code bin/sgm mcp}) makes {@code
 * sgm.bench.stores} single stores as fast as it is answered, beside a second session; then, for
 * three minutes, one store a second for ten seconds of every minute, printing the file's size each
 * minute; then the holder is killed (SIGKILL) and the time until the second session's next store is
 * answered is printed, and the file's size once that session has closed the store.
 *
 * <p>Run: {@code ./sgm-benchmarks/run-disk} ({@code -Dsgm.bench.stores}, default 15000).
 */
public final class DiskUseBenchmark {
  private DiskUseBenchmark() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: DiskUseBenchmark PATH/TO/bin/sgm");
      System.exit(2);
    }
    String sgm = args[0];
    int stores = Integer.getInteger("sgm.bench.stores", 15000);
    try (ScratchDirectory scratch = ScratchDirectory.create("sgm-disk-bench")) {
      Path data = scratch.path().resolve("data");
      Path file = data.resolve("sgm.mv.db");
      McpStdioClient holder = SharedDirectoryBenchmark.session(sgm, scratch.path(), data, "holder");
      try (McpStdioClient other =
          SharedDirectoryBenchmark.session(sgm, scratch.path(), data, "other")) {
        long start = System.nanoTime();
        int key = 0;
        for (; key < stores; key++) {
          SharedDirectoryBenchmark.store(holder, key);
        }
        System.out.printf(
            Locale.ROOT,
            "%d single stores in %.0f s: the store's file is %s%n",
            stores,
            (System.nanoTime() - start) / 1e9,
            megabytes(file));
        for (int minute = 1; minute <= 3; minute++) {
          Thread.sleep(50_000);
          for (int i = 0; i < 10; i++) {
            SharedDirectoryBenchmark.store(holder, key++);
            Thread.sleep(1000);
          }
          System.out.printf(
              Locale.ROOT,
              "  %d min later (a store a second in its last 10 s): %s%n",
              minute,
              megabytes(file));
        }
        if (SharedDirectoryBenchmark.holderPid(data) != holder.process().pid()) {
          throw new IllegalStateException("the first session does not hold " + data);
        }
        long killed = System.nanoTime();
        holder.process().destroyForcibly();
        SharedDirectoryBenchmark.store(other, key++);
        System.out.printf(
            Locale.ROOT,
            "hand-over after SIGKILL of the holder: the other session answered in %.0f ms%n",
            (System.nanoTime() - killed) / 1e6);
      } finally {
        holder.close();
      }
      System.out.printf(Locale.ROOT, "after the store was closed: %s%n", megabytes(file));
    }
  }

  private static String megabytes(Path file) throws IOException {
    return String.format(Locale.ROOT, "%.0f MB", Files.size(file) / (1024.0 * 1024.0));
  }
}
