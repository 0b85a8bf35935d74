package dev.sgm.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * CPU time of the whole machine, of the database server's processes, and of this JVM, read from
 * {@code /proc}: between two readings, whether the database or the machine bounds a throughput.
 */
record MachineCpu(
    long wallNanos, long busyTicks, long totalTicks, long postgresTicks, long jvmTicks) {
  static MachineCpu now() throws IOException {
    String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
    long total = 0;
    for (int i = 1; i < cpu.length; i++) {
      total += Long.parseLong(cpu[i]);
    }
    long idle = Long.parseLong(cpu[4]) + Long.parseLong(cpu[5]);
    long postgres = 0;
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
        long[] t = ticks(p);
        if (t != null && t[0] == 1) {
          postgres += t[1];
        }
      }
    }
    long[] self = ticks(Path.of("/proc/self"));
    return new MachineCpu(
        System.nanoTime(), total - idle, total, postgres, self == null ? 0 : self[1]);
  }

  /** {isPostgres, utime + stime} of a process, or null when it has gone. */
  private static long[] ticks(Path proc) {
    try {
      String stat = Files.readString(proc.resolve("stat"));
      String comm = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      return new long[] {comm.equals("postgres") ? 1 : 0, CappedNode.ticksIn(stat)};
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  String since(MachineCpu start) {
    double wall = (wallNanos - start.wallNanos) / 1e9;
    // Ticks are 1/100 s on Linux.
    double cores = Runtime.getRuntime().availableProcessors();
    return String.format(
        Locale.ROOT,
        "machine CPU %.0f%% busy; PostgreSQL %.2f cores, this JVM %.2f cores, of %.0f",
        100.0 * (busyTicks - start.busyTicks) / Math.max(1, totalTicks - start.totalTicks),
        (postgresTicks - start.postgresTicks) / 100.0 / wall,
        (jvmTicks - start.jvmTicks) / 100.0 / wall,
        cores);
  }
}
