package dev.sgm.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A node ({@code bin/sgm serve} on PostgreSQL, gRPC only, no embedder) in a process of its own
 * whose CPU time a cgroup caps at a share of a core: a stand-in, on one machine, for a node on a
 * machine of its own, so that adding a node adds CPU for nodes while the database and the callers
 * keep the rest. Needs a writable cgroup {@code cpu} controller (v1 at {@code /sys/fs/cgroup/cpu},
 * or v2), as root has in a container.
 */
final class CappedNode implements AutoCloseable {
  private static final Path V1 = Path.of("/sys/fs/cgroup/cpu");
  private static final Path V2 = Path.of("/sys/fs/cgroup");
  private static final long PERIOD_MICROS = 100_000;

  private final Process process;
  private final Path cgroup;
  private final String grpcTarget;

  /** Why no node can be capped here, or null when one can. */
  static String unavailable() {
    if (Files.isWritable(V1.resolve("cgroup.procs"))
        && Files.exists(V1.resolve("cpu.cfs_quota_us"))) {
      return null;
    }
    try {
      if (Files.isWritable(V2.resolve("cgroup.procs"))
          && Files.readString(V2.resolve("cgroup.subtree_control")).contains("cpu")) {
        return null;
      }
    } catch (IOException e) {
      // No cgroup v2 hierarchy either.
    }
    return "no writable cgroup cpu controller (run as root, or with a delegated cgroup)";
  }

  /**
   * Starts the node and caps it at {@code cores} (for example 0.5) from its first instructions on;
   * returns once it answers.
   */
  CappedNode(String sgm, Path data, String databaseUrl, String user, String password, double cores)
      throws IOException, InterruptedException {
    Files.createDirectories(data);
    Path log = data.resolve("serve.log");
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    sgm,
                    "serve",
                    "--data",
                    data.toString(),
                    "-D",
                    "storage=postgres",
                    "-D",
                    "storage.postgres.url=" + databaseUrl,
                    "-D",
                    "storage.postgres.user=" + user,
                    "-D",
                    "transports.enabled=grpc",
                    "-D",
                    "grpc.port=0",
                    "-D",
                    "embedders.disabled=bge-e5-small,bge-small-en"))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile());
    builder.environment().put("XDG_CACHE_HOME", data.resolve("cache").toString());
    builder.environment().put("SGM_STORAGE_POSTGRES_PASSWORD", password);
    this.process = builder.start();
    Path group = null;
    try {
      group = cap(process.pid(), data.getFileName() + "-" + process.pid(), cores);
      this.grpcTarget = awaitReady(process, log);
    } catch (IOException | RuntimeException | InterruptedException e) {
      process.destroyForcibly();
      if (group != null) {
        remove(group);
      }
      throw e;
    }
    this.cgroup = group;
  }

  /** Where its gRPC transport listens, as {@code host:port}. */
  String grpcTarget() {
    return grpcTarget;
  }

  /** CPU time of the process so far, user and system, in clock ticks (1/100 s). */
  long cpuTicks() {
    try {
      return ticksIn(Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat")));
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * The CPU time, user and system, in clock ticks, that the text of a {@code /proc} {@code stat}
   * file (of a process or a thread) gives: its 14th and 15th fields, counted after the command
   * name, which may hold spaces.
   */
  static long ticksIn(String stat) {
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  /**
   * CPU time of the node's JIT compiler threads so far, in clock ticks: under a cap, compiling
   * takes minutes and competes with serving, so a measurement waits for it to settle.
   */
  long compilerTicks() {
    long ticks = 0;
    try (var threads = Files.list(Path.of("/proc", Long.toString(process.pid()), "task"))) {
      for (Path thread : threads.toList()) {
        try {
          String name = Files.readString(thread.resolve("comm")).trim();
          if (name.startsWith("C1 Compiler") || name.startsWith("C2 Compiler")) {
            ticks += ticksIn(Files.readString(thread.resolve("stat")));
          }
        } catch (IOException | RuntimeException e) {
          // A compiler thread that ended meanwhile: its time is gone from the sum either way.
        }
      }
    } catch (IOException e) {
      return 0;
    }
    return ticks;
  }

  /**
   * How long the cap has held the node back so far, in milliseconds: the time its threads were
   * ready to run but had used up their share of the period.
   */
  long throttledMillis() {
    try {
      for (String line : Files.readAllLines(cgroup.resolve("cpu.stat"))) {
        String[] f = line.split(" ");
        if (f[0].equals("throttled_usec")) { // cgroup v2
          return Long.parseLong(f[1]) / 1000;
        }
        if (f[0].equals("throttled_time")) { // cgroup v1, in nanoseconds
          return Long.parseLong(f[1]) / 1_000_000;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not told: shown as none.
    }
    return 0;
  }

  private static Path cap(long pid, String name, double cores) throws IOException {
    long quota = Math.max(1000, Math.round(cores * PERIOD_MICROS));
    Path group;
    if (Files.exists(V1.resolve("cpu.cfs_quota_us"))) {
      group = Files.createDirectories(V1.resolve("sgm-bench-" + name));
      write(group.resolve("cpu.cfs_period_us"), Long.toString(PERIOD_MICROS));
      write(group.resolve("cpu.cfs_quota_us"), Long.toString(quota));
    } else {
      group = Files.createDirectories(V2.resolve("sgm-bench-" + name));
      write(group.resolve("cpu.max"), quota + " " + PERIOD_MICROS);
    }
    // The whole process, every thread it has and will have.
    write(group.resolve("cgroup.procs"), Long.toString(pid));
    return group;
  }

  private static void write(Path file, String value) throws IOException {
    Files.writeString(file, value, StandardCharsets.US_ASCII);
  }

  private static String awaitReady(Process process, Path log)
      throws IOException, InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    String text = "";
    while (System.nanoTime() < deadline && process.isAlive()) {
      text = Files.exists(log) ? Files.readString(log) : "";
      if (text.contains("ready in")) {
        Matcher served = Pattern.compile("serving grpc://(\\S+)").matcher(text);
        if (served.find()) {
          return served.group(1);
        }
      }
      Thread.sleep(20);
    }
    throw new IOException("the node did not start: " + text);
  }

  private static void remove(Path group) {
    // A cgroup can be removed once its processes are gone; the kernel takes a moment to notice.
    for (int i = 0; i < 100; i++) {
      try {
        Files.deleteIfExists(group);
        return;
      } catch (IOException e) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    remove(cgroup);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "node %d at %s", process.pid(), grpcTarget);
  }
}
