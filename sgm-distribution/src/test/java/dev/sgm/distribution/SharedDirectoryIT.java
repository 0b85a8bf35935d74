package dev.sgm.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import dev.sgm.transport.mcp.McpStdioClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several processes on one data directory, launched as agents launch them ({@code bin/sgm mcp} on
 * stdio, {@code bin/sgm} commands): they share one memory, the directory survives its holder being
 * killed, and another user of the machine cannot reach it.
 */
class SharedDirectoryIT {
  private static final Path DIST = Path.of(System.getProperty("sgm.dist", "target/sgm"));
  private static final String SGM = DIST.resolve("bin/sgm").toAbsolutePath().toString();
  private static final int CYCLES = 10;
  private static final long HAND_OVER_LIMIT_MS = 2000;

  @TempDir Path temp;

  private ProcessBuilder sgm(String... args) {
    List<String> command = new ArrayList<>(List.of(SGM));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    return builder;
  }

  /** Where the session of {@code agent} writes its standard error. */
  private Path errorLog(String agent) {
    return temp.resolve(agent + ".err");
  }

  private McpStdioClient session(Path data, String agent) throws IOException {
    return new McpStdioClient(
        sgm("mcp", "--data", data.toString(), "--project", "kill", "--agent", agent)
            .redirectError(ProcessBuilder.Redirect.appendTo(errorLog(agent).toFile())));
  }

  @Test
  void threeAgentSessionsAndTheCommandLineShareOneMemory() throws Exception {
    Path node = Path.of("src", "test", "node");
    Assumptions.assumeTrue(
        Files.isDirectory(node.resolve("node_modules/@modelcontextprotocol/sdk")),
        "the MCP SDK is not installed: npm ci --prefix sgm-distribution/src/test/node (.ci/run does)");
    Path output = temp.resolve("node.log");
    ProcessBuilder builder =
        new ProcessBuilder(
                "node",
                node.resolve("shared-memory.mjs").toString(),
                SGM,
                temp.resolve("data").toString())
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    builder.environment().put("XDG_CACHE_HOME", temp.resolve("cache").toString());
    Process client = builder.start();
    assertTrue(client.waitFor(300, TimeUnit.SECONDS), "the sessions finish");
    String log = Files.readString(output);
    assertEquals(0, client.exitValue(), log);
    assertTrue(log.contains(" passed, 0 failed"), log);
  }

  /**
   * A session started beside a holder is a thin relay: the launcher gives it the core and the MCP
   * plugin only (no storage, index or model on its module path); when the holder dies it loads the
   * other plugins and takes the directory over, and later sessions relay to it.
   */
  @Test
  void aFurtherSessionIsAThinRelayThatTakesTheDirectoryOverWhenTheHolderDies() throws Exception {
    Path data = temp.resolve("data");
    try (McpStdioClient holder = session(data, "holder")) {
      holder.call("store", note("from-holder"));
      try (McpStdioClient relay = session(data, "relay")) {
        String command =
            Files.readString(Path.of("/proc", Long.toString(relay.process().pid()), "cmdline"))
                .replace('\0', ' ');
        assertTrue(command.contains("-Dsgm.plugins="), command);
        assertTrue(!command.contains("/plugins/h2-") && !command.contains("onnxruntime"), command);
        assertEquals(
            "from-holder",
            relay
                .call("read", Json.object().put("id", "from-holder"))
                .path("record")
                .path("id")
                .asText());
        holder.process().destroyForcibly();
        holder.process().waitFor();
        relay.call("store", note("after-the-holder"));
        assertEquals(relay.process().pid(), holder(data), "the relay holds the directory now");
        try (McpStdioClient later = session(data, "later")) {
          assertEquals(
              "after-the-holder",
              later
                  .call("read", Json.object().put("id", "after-the-holder"))
                  .path("record")
                  .path("id")
                  .asText());
          assertEquals(
              "from-holder",
              later
                  .call("read", Json.object().put("id", "from-holder"))
                  .path("record")
                  .path("id")
                  .asText());
        }
      }
    }
  }

  /** One agent storing records as fast as its session answers, noting each acknowledged one. */
  private static final class Writer extends Thread {
    final McpStdioClient session;
    final String agent;
    final Map<String, Long> acknowledged; // id -> when it was acknowledged (nanoTime)
    final List<long[]> answered = new CopyOnWriteArrayList<>(); // {started, ended} of each ack
    volatile boolean stopped;
    int unavailable;

    Writer(McpStdioClient session, String agent, Map<String, Long> acknowledged) {
      super("writer-" + agent);
      this.session = session;
      this.agent = agent;
      this.acknowledged = acknowledged;
      setDaemon(true);
    }

    @Override
    public void run() {
      for (int n = 0; !stopped && session.process().isAlive(); ) {
        String id = getName() + "-" + n;
        ObjectNode record = Json.object();
        record.put("id", id).put("type", "note").put("content", "written under load " + n);
        ObjectNode request = Json.object();
        request.set("record", record);
        long started = System.nanoTime();
        try {
          session.call("store", request);
          long ended = System.nanoTime();
          answered.add(new long[] {started, ended});
          acknowledged.put(id, ended);
          n++;
        } catch (SgmException e) {
          if (e.code() != ErrorCode.UNAVAILABLE) {
            throw e;
          }
          unavailable++; // safe to send again: a store is idempotent by identity
        }
      }
    }

    /** When this writer was first answered for a call it began after {@code since}, or -1. */
    long firstAnswerAfter(long since) {
      for (long[] call : answered) {
        if (call[0] >= since) {
          return call[1];
        }
      }
      return -1;
    }
  }

  /** The process holding {@code data}: whoever has the OS lock on its lock file. */
  private static long holder(Path data) throws IOException {
    Object inode = Files.getAttribute(data.resolve("sgm.holder.lock"), "unix:ino");
    for (String line : Files.readAllLines(Path.of("/proc/locks"))) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length > 5 && fields[5].endsWith(":" + inode)) {
        return Long.parseLong(fields[4]);
      }
    }
    return -1;
  }

  @Test
  void theHolderKilledUnderLoadLosesNoAcknowledgedWriteAndIsReplacedWithinTwoSeconds()
      throws Exception {
    Path data = temp.resolve("data");
    Map<String, Long> acknowledged = new ConcurrentHashMap<>();
    List<Writer> writers = new ArrayList<>();
    List<Long> handOvers = new ArrayList<>();
    List<long[]> kills = new ArrayList<>(); // {when (nanoTime), pid}
    try {
      for (int i = 0; i < 3; i++) {
        Writer writer = new Writer(session(data, "agent-" + i), "agent-" + i, acknowledged);
        writer.start();
        writers.add(writer);
      }
      for (int cycle = 0; cycle < CYCLES; cycle++) {
        Thread.sleep(600); // the load runs
        long pid = holder(data);
        Writer victim = null;
        for (Writer writer : writers) {
          if (writer.session.process().isAlive() && writer.session.process().pid() == pid) {
            victim = writer;
          }
        }
        assertNotNull(victim, "one of the sessions holds the directory (pid " + pid + ")");
        long killed = System.nanoTime();
        victim.session.process().destroyForcibly(); // SIGKILL
        kills.add(new long[] {killed, pid});
        victim.stopped = true;
        long worst = 0;
        for (Writer survivor : writers) {
          if (survivor == victim || survivor.stopped) {
            continue;
          }
          long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
          long answered;
          while ((answered = survivor.firstAnswerAfter(killed)) < 0
              && System.nanoTime() < deadline) {
            Thread.sleep(2);
          }
          assertTrue(answered > 0, survivor.getName() + " answers again after cycle " + cycle);
          worst = Math.max(worst, answered - killed);
        }
        handOvers.add(TimeUnit.NANOSECONDS.toMillis(worst));
        Writer replacement =
            new Writer(session(data, "agent-" + (3 + cycle)), "agent-" + (3 + cycle), acknowledged);
        replacement.start();
        writers.add(replacement);
      }
    } finally {
      for (Writer writer : writers) {
        writer.stopped = true;
      }
      for (Writer writer : writers) {
        writer.join(TimeUnit.SECONDS.toMillis(70));
        writer.session.close();
      }
    }
    System.out.printf(
        "%d acknowledged stores, %d answered unavailable; hand-over times, ms, per SIGKILL of the"
            + " holder: %s%n",
        acknowledged.size(), writers.stream().mapToInt(w -> w.unavailable).sum(), handOvers);
    Process export =
        sgm("--data", data.toString(), "export", "--scope", "project=kill")
            .redirectError(ProcessBuilder.Redirect.INHERIT)
            .start();
    List<String> lines = new String(export.getInputStream().readAllBytes()).lines().toList();
    assertEquals(0, export.waitFor());
    Set<String> stored = new HashSet<>();
    for (String line : lines) {
      stored.add(Json.parse(line).path("id").asText());
    }
    Set<String> lost = new HashSet<>(acknowledged.keySet());
    lost.removeAll(stored);
    assertTrue(acknowledged.size() > 100, "the load wrote " + acknowledged.size());
    assertEquals(
        Set.of(),
        lost,
        () ->
            "acknowledged writes missing after "
                + CYCLES
                + " kills\n"
                + evidence(data, lost, acknowledged, kills, writers));
    for (long ms : handOvers) {
      assertTrue(ms <= HAND_OVER_LIMIT_MS, "hand-over took " + ms + " ms: " + handOvers);
    }
  }

  /**
   * What a failure of the kill test needs to be understood from its log alone: when each lost write
   * was acknowledged relative to the kills, whether a read by its id (another path than the
   * export's) finds it, which process each writer was, and what the sessions wrote to their
   * standard error.
   */
  private String evidence(
      Path data,
      Set<String> lost,
      Map<String, Long> acknowledged,
      List<long[]> kills,
      List<Writer> writers) {
    StringBuilder text = new StringBuilder();
    for (String id : lost) {
      try {
        Process read =
            sgm("--data", data.toString(), "read", "--scope", "project=kill", "--id", id)
                .redirectErrorStream(true)
                .start();
        String output = new String(read.getInputStream().readAllBytes()).strip();
        text.append("read ").append(id).append(" (exit ").append(read.waitFor()).append("): ");
        text.append(output.substring(0, Math.min(300, output.length()))).append('\n');
      } catch (IOException e) {
        text.append("read ").append(id).append(" failed: ").append(e).append('\n');
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        text.append("read ").append(id).append(" interrupted\n");
      }
      long at = acknowledged.get(id);
      text.append(id).append(" was acknowledged");
      for (int k = 0; k < kills.size(); k++) {
        long ms = TimeUnit.NANOSECONDS.toMillis(at - kills.get(k)[0]);
        if (Math.abs(ms) < 5000) {
          text.append(String.format(" %+d ms from kill %d (pid %d);", ms, k, kills.get(k)[1]));
        }
      }
      text.append('\n');
    }
    for (Writer writer : writers) {
      text.append(writer.getName())
          .append(": pid ")
          .append(writer.session.process().pid())
          .append(", ")
          .append(writer.unavailable)
          .append(" answered unavailable\n");
      try {
        List<String> err = Files.readAllLines(errorLog(writer.agent));
        err.subList(Math.max(0, err.size() - 20), err.size())
            .forEach(line -> text.append("  ").append(line).append('\n'));
      } catch (IOException e) {
        text.append("  (no standard error: ").append(e.getMessage()).append(")\n");
      }
    }
    return text.toString();
  }

  private static final long TIMEOUT_MS = 1500;

  private static JsonNode note(String id) {
    return Json.parseObject(
        "{\"record\": {\"id\": \""
            + id
            + "\", \"type\": \"note\", \"content\": \"about "
            + id
            + "\"}}",
        "request");
  }

  private static int signal(String name, long pid) throws Exception {
    return new ProcessBuilder("kill", "-" + name, Long.toString(pid)).start().waitFor();
  }

  @Test
  void aHolderThatStopsAnsweringFailsCallsUnavailableAfterTheTimeoutAndAnswersWhenResumed()
      throws Exception {
    Path data = temp.resolve("data");
    try (McpStdioClient holder = session(data, "holder");
        McpStdioClient other =
            new McpStdioClient(
                sgm(
                        "-D",
                        "channel.timeout-ms=" + TIMEOUT_MS,
                        "mcp",
                        "--data",
                        data.toString(),
                        "--project",
                        "kill",
                        "--agent",
                        "other")
                    .redirectError(ProcessBuilder.Redirect.appendTo(errorLog("other").toFile())))) {
      holder.call("store", note("before"));
      JsonNode read = Json.object().put("id", "before");
      assertEquals("before", other.call("read", read).path("record").path("id").asText());
      long pid = holder(data);
      assertEquals(holder.process().pid(), pid, "the first session holds the directory");
      assertEquals(0, signal("STOP", pid));
      try {
        long started = System.nanoTime();
        SgmException stopped =
            org.junit.jupiter.api.Assertions.assertThrows(
                SgmException.class, () -> other.call("read", read));
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertEquals(ErrorCode.UNAVAILABLE, stopped.code(), stopped.getMessage());
        assertTrue(
            stopped.getMessage().contains("has not answered for 1500 ms"), stopped.getMessage());
        assertTrue(stopped.getMessage().contains("sending it again is safe"), stopped.getMessage());
        assertTrue(millis >= TIMEOUT_MS, "failed after " + millis + " ms");
        assertTrue(millis < TIMEOUT_MS + 1000, "failed after " + millis + " ms");
        // A store waits the same, and says it may have been run: the holder reads it on resuming.
        SgmException store =
            org.junit.jupiter.api.Assertions.assertThrows(
                SgmException.class, () -> other.call("store", note("while-stopped")));
        assertEquals(ErrorCode.UNAVAILABLE, store.code(), store.getMessage());
        assertTrue(store.getMessage().contains("may or may not have taken effect"));
        // A command does too, with the exit code of unavailable.
        long commandStarted = System.nanoTime();
        Process command =
            sgm(
                    "-D",
                    "channel.timeout-ms=" + TIMEOUT_MS,
                    "--data",
                    data.toString(),
                    "read",
                    "--scope",
                    "project=kill",
                    "--id",
                    "before")
                .redirectErrorStream(true)
                .start();
        String output = new String(command.getInputStream().readAllBytes());
        assertTrue(command.waitFor(30, TimeUnit.SECONDS));
        long commandMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - commandStarted);
        assertEquals(5, command.exitValue(), output);
        assertTrue(output.contains("has not answered"), output);
        assertTrue(commandMillis >= TIMEOUT_MS, "the command failed after " + commandMillis);
      } finally {
        assertEquals(0, signal("CONT", pid));
      }
      long resumed = System.nanoTime();
      assertEquals("before", other.call("read", read).path("record").path("id").asText());
      assertTrue(
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resumed) < TIMEOUT_MS,
          "the resumed holder answers at once");
      assertEquals(
          "while-stopped",
          readEventually(other, "while-stopped"),
          "the store sent while the holder was stopped ran when it resumed");
    }
  }

  /**
   * Reads a record that a holder will write but may not have written yet: the holder serves each
   * connection on its own thread, so a request left on a connection abandoned while it was stopped
   * can run after one sent later on a fresh connection.
   */
  private static String readEventually(McpStdioClient client, String id) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
    while (true) {
      try {
        return client.call("read", Json.object().put("id", id)).path("record").path("id").asText();
      } catch (SgmException e) {
        if (e.code() != ErrorCode.NOT_FOUND || System.nanoTime() > deadline) {
          throw e;
        }
        Thread.sleep(50);
      }
    }
  }

  private Process reindex(Path data) throws IOException {
    return sgm("--data", data.toString(), "reindex")
        .redirectError(ProcessBuilder.Redirect.PIPE)
        .start();
  }

  @Test
  void reindexRunsInTheHolderWhileOneRunsAndOnTheDirectoryWhenNoneDoes() throws Exception {
    Path data = temp.resolve("data");
    try (McpStdioClient holder = session(data, "holder")) {
      for (int i = 0; i < 20; i++) {
        holder.call("store", note("reindexed-" + i));
      }
      Process command = reindex(data);
      String out = new String(command.getInputStream().readAllBytes());
      String err = new String(command.getErrorStream().readAllBytes());
      assertEquals(0, command.waitFor(), out + err);
      assertTrue(out.startsWith("reindexed 20 records in "), out + err);
      assertEquals(holder.process().pid(), holder(data), "the session still holds the directory");
      JsonNode found =
          holder.call(
              "retrieve", Json.parseObject("{\"text\": \"reindexed-7\", \"limit\": 3}", "q"));
      assertTrue(found.toString().contains("reindexed-7"), found.toString());
    }
    Process command = reindex(data);
    String out = new String(command.getInputStream().readAllBytes());
    String err = new String(command.getErrorStream().readAllBytes());
    assertEquals(0, command.waitFor(), out + err);
    assertTrue(out.startsWith("reindexed 20 records in "), out + err);
  }

  @Test
  void anotherUserOfTheMachineCannotConnectToTheChannel() throws Exception {
    Assumptions.assumeTrue(
        "root".equals(System.getProperty("user.name")), "creating a user needs root (as in CI)");
    String other = "sgm-other-" + ProcessHandle.current().pid();
    assertEquals(0, new ProcessBuilder("useradd", "--no-create-home", other).start().waitFor());
    // The temporary directory's parents must let the other user reach the data directory at all.
    Path shared = Files.createTempDirectory(Path.of("/tmp"), "sgm-shared-");
    Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path data = shared.resolve("data");
    try (McpStdioClient holder = session(data, "owner")) {
      JsonNode stored =
          holder.call(
              "store",
              Json.parseObject(
                  "{\"record\": {\"id\": \"private\", \"type\": \"note\", \"content\": \"mine\"}}",
                  "request"));
      assertEquals("private", stored.path("record").path("id").asText());
      Path socket = data.resolve("sgm.channel/sgm.sock");
      assertTrue(Files.exists(socket), "the holder serves " + socket);
      assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(data)));
      assertEquals(
          "rwx------",
          PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())));
      assertEquals(
          "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
      assertEquals("refused", connectAs(other, socket));
      // Even with the directories opened to everyone, the socket's own mode keeps the other out.
      Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwxr-xr-x"));
      Files.setPosixFilePermissions(
          socket.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
      assertEquals("refused", connectAs(other, socket));
      // The check itself can fail: the owner does reach the socket.
      assertEquals("connected", connectAs("root", socket));
      // And nothing of the holder listens on TCP: the channel is the only way in.
      assertEquals(Set.of(), listeningPorts(holder.process().pid()));
    } finally {
      new ProcessBuilder("userdel", other).start().waitFor();
    }
  }

  /** Tries to connect to {@code socket} as {@code user}: "connected", or "refused". */
  private static String connectAs(String user, Path socket) throws Exception {
    String script =
        "import socket\n"
            + "s = socket.socket(socket.AF_UNIX)\n"
            + "try:\n"
            + "    s.connect('"
            + socket
            + "')\n"
            + "    print('connected')\n"
            + "except OSError as e:\n"
            + "    print('refused', e)\n";
    Process process =
        new ProcessBuilder("runuser", "-u", user, "--", "/usr/bin/python3", "-c", script)
            .redirectErrorStream(true)
            .start();
    String output = new String(process.getInputStream().readAllBytes()).trim();
    assertEquals(0, process.waitFor(), output);
    return output.startsWith("refused") ? "refused" : output;
  }

  /** The TCP ports a process listens on, from /proc (IPv4 and IPv6). */
  private static Set<String> listeningPorts(long pid) throws IOException {
    Set<String> inodes = new HashSet<>();
    try (var fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
      for (Path fd : fds.toList()) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")) {
            inodes.add(target.substring(8, target.length() - 1));
          }
        } catch (IOException e) {
          // Closed while listing.
        }
      }
    }
    Set<String> ports = new HashSet<>();
    for (String table : List.of("tcp", "tcp6")) {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "net", table))) {
        String[] fields = line.trim().split("\\s+");
        if (fields.length > 9 && fields[3].equals("0A") && inodes.contains(fields[9])) {
          ports.add(fields[1]);
        }
      }
    }
    return ports;
  }
}
