package dev.sgm.distribution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every shell example of the README, the guides under {@code docs/} and the kit's and benchmarks'
 * READMEs runs as written: each document's blocks in order, as one shell session in a fresh
 * directory with a fresh data directory and home, where {@code ./sgm} runs the built distribution
 * and {@code docs/proto} holds the published protos. A command must succeed, and a {@code # →} line
 * under it shows (part of) what it prints: JSON is matched field by field (an array element by
 * element, as many as shown, a string with {@code …} as a wildcard), text piece by piece between
 * the {@code …}, and a trailing {@code (exit N)} says the command fails with that exit code. {@code
 * ./sgm serve} runs in the background, as in a terminal of its own, until the document ends or the
 * next one starts. A block that cannot run here says why in a {@code <!-- not run: ... -->} line
 * above it.
 */
class DocumentedExamplesIT {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path DIST =
      Path.of(System.getProperty("sgm.dist", "target/sgm")).toAbsolutePath();
  private static final Pattern FENCE = Pattern.compile("^```(sh|bash)\\s*$");
  private static final Pattern NOT_RUN = Pattern.compile("^<!-- not run: (.+) -->$");
  private static final Pattern SERVE =
      Pattern.compile("^((?:[A-Z_][A-Z0-9_]*=\\S+\\s+)*)\\./sgm serve\\b.*", Pattern.DOTALL);
  private static final Pattern EXIT = Pattern.compile("^(.*) \\(exit (\\d+)\\)$", Pattern.DOTALL);

  @TempDir Path temp;

  /** A fenced shell block: where it starts, its text, and why it is not run (null when it is). */
  private record Block(Path document, int line, String text, String notRun) {}

  /** One command (its lines joined) and what the document shows it prints, if anything. */
  private record Step(int line, String command, String shown) {}

  private static List<Path> documents() throws IOException {
    List<Path> documents = new ArrayList<>();
    documents.add(ROOT.resolve("README.md"));
    try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    documents.add(ROOT.resolve("sgm-tck/README.md"));
    documents.add(ROOT.resolve("sgm-benchmarks/README.md"));
    return documents;
  }

  private static List<Block> blocks(Path document) throws IOException {
    List<String> lines = Files.readAllLines(document);
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      if (!FENCE.matcher(lines.get(i)).matches()) {
        continue;
      }
      String notRun = null;
      for (int k = i - 1; k >= 0 && k >= i - 2; k--) {
        Matcher marker = NOT_RUN.matcher(lines.get(k).strip());
        if (marker.matches()) {
          notRun = marker.group(1);
        }
      }
      int start = i + 1;
      int end = start;
      while (end < lines.size() && !lines.get(end).startsWith("```")) {
        end++;
      }
      blocks.add(new Block(document, start, String.join("\n", lines.subList(start, end)), notRun));
      i = end;
    }
    return blocks;
  }

  /**
   * The commands of a block: a line ending in a backslash, or inside an open quote, goes on to the
   * next; comment lines are dropped, except {@code # →}, which belongs to the command before it.
   */
  static List<Step> steps(Block block) {
    List<Step> steps = new ArrayList<>();
    StringBuilder command = new StringBuilder();
    int startLine = 0;
    String[] lines = block.text().split("\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i];
      if (command.isEmpty()) {
        if (line.startsWith("# → ")) {
          assertTrue(!steps.isEmpty(), where(block, i) + ": an output shown under no command");
          Step last = steps.removeLast();
          assertTrue(last.shown() == null, where(block, i) + ": two outputs under one command");
          steps.add(new Step(last.line(), last.command(), line.substring(4).strip()));
          continue;
        }
        if (line.isBlank() || line.startsWith("#")) {
          continue;
        }
        startLine = block.line() + i + 1;
      }
      command.append(line).append('\n');
      if (!continues(command.toString())) {
        steps.add(new Step(startLine, command.toString().strip(), null));
        command.setLength(0);
      }
    }
    assertTrue(command.isEmpty(), where(block, lines.length) + ": a command never ends");
    return steps;
  }

  /** Whether shell text so far leaves a quote open or ends in a backslash. */
  private static boolean continues(String text) {
    boolean single = false;
    boolean dquote = false;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\' && !single) {
        if (i + 1 < text.length() && text.charAt(i + 1) == '\n' && i + 2 == text.length()) {
          return true;
        }
        i++;
      } else if (c == '\'' && !dquote) {
        single = !single;
      } else if (c == '"' && !single) {
        dquote = !dquote;
      } else if (c == '#'
          && !single
          && !dquote
          && (i == 0 || Character.isWhitespace(text.charAt(i - 1)))) {
        while (i < text.length() && text.charAt(i) != '\n') {
          i++;
        }
      }
    }
    return single || dquote;
  }

  private static String where(Block block, int offset) {
    return ROOT.relativize(block.document()) + ":" + (block.line() + offset + 1);
  }

  @Test
  void everyBlockThatIsNotRunSaysWhyAndTheRestAreMany() throws IOException {
    int run = 0;
    List<String> notRun = new ArrayList<>();
    for (Path document : documents()) {
      for (Block block : blocks(document)) {
        if (block.notRun() == null) {
          run += steps(block).size();
        } else {
          assertTrue(block.notRun().length() >= 20, where(block, -1) + ": say why it is not run");
          notRun.add(where(block, -1) + ": " + block.notRun());
        }
      }
    }
    System.out.println("examples not run:\n  " + String.join("\n  ", notRun));
    assertTrue(run >= 40, "commands run: " + run);
  }

  @TestFactory
  Stream<DynamicTest> everyDocumentsExamplesRunAsWritten() throws IOException {
    List<DynamicTest> tests = new ArrayList<>();
    for (Path document : documents()) {
      List<Step> steps = new ArrayList<>();
      for (Block block : blocks(document)) {
        if (block.notRun() == null) {
          steps.addAll(steps(block));
        }
      }
      if (!steps.isEmpty()) {
        tests.add(
            DynamicTest.dynamicTest(
                ROOT.relativize(document).toString(), () -> run(document, steps)));
      }
    }
    return tests.stream();
  }

  private void run(Path document, List<Step> steps) throws Exception {
    for (int port : new int[] {7410, 7411, 7412}) {
      try (ServerSocket probe = new ServerSocket()) {
        probe.bind(new InetSocketAddress("127.0.0.1", port));
      } catch (IOException e) {
        fail("port " + port + " is in use: the examples use the default ports");
      }
    }
    Path dir =
        Files.createDirectories(temp.resolve(document.getFileName() + "-" + System.nanoTime()));
    Path work = Files.createDirectories(dir.resolve("work"));
    Path out = Files.createDirectories(dir.resolve("out"));
    // ./sgm as in a clone, and the published protos where the gRPC example reads them (copies, not
    // links, so that nothing outside the test's directory is touched when it is removed).
    Path launcher = work.resolve("sgm");
    Files.writeString(
        launcher, "#!/usr/bin/env bash\nexec " + DIST.resolve("bin/sgm") + " \"$@\"\n");
    launcher.toFile().setExecutable(true);
    Path protos = ROOT.resolve("docs/proto");
    try (Stream<Path> files = Files.walk(protos)) {
      for (Path from : files.toList()) {
        Path to = work.resolve("docs/proto").resolve(protos.relativize(from).toString());
        if (Files.isDirectory(from)) {
          Files.createDirectories(to);
        } else {
          Files.copy(from, to);
        }
      }
    }
    StringBuilder script = new StringBuilder();
    script.append(
        """
        __server=""
        __stop() { if [ -n "$__server" ]; then kill -TERM "$__server" 2>/dev/null; wait "$__server" 2>/dev/null; __server=""; fi; }
        trap __stop EXIT
        """);
    for (int i = 0; i < steps.size(); i++) {
      Step step = steps.get(i);
      String o = out.resolve(i + ".out").toString();
      String e = out.resolve(i + ".err").toString();
      String x = out.resolve(i + ".exit").toString();
      Matcher serve = SERVE.matcher(step.command());
      if (serve.matches()) {
        Path launch = out.resolve(i + ".serve.sh");
        Files.writeString(
            launch,
            serve.group(1) + "exec " + step.command().substring(serve.group(1).length()) + "\n");
        script
            .append("__stop\n")
            .append("bash ")
            .append(launch)
            .append(" > ")
            .append(o)
            .append(" 2> ")
            .append(e)
            .append(" < /dev/null &\n__server=$!\n")
            .append("__ready=no; for __i in $(seq 1 1200); do")
            .append(" grep -q 'ready in' ")
            .append(e)
            .append(" ")
            .append(o)
            .append(" 2>/dev/null && { __ready=yes; break; };")
            .append(" kill -0 \"$__server\" 2>/dev/null || break; sleep 0.05; done\n")
            // Ready: it succeeded so far. Ended (or never ready): its exit code is the outcome.
            .append("if [ $__ready = yes ]; then echo 0 > ")
            .append(x)
            .append("; else kill -TERM \"$__server\" 2>/dev/null; wait \"$__server\"; echo $? > ")
            .append(x)
            .append("; __server=\"\"; fi\n");
      } else {
        script
            .append("{\n")
            .append(step.command())
            .append("\n} > ")
            .append(o)
            .append(" 2> ")
            .append(e)
            .append(" < /dev/null\necho $? > ")
            .append(x)
            .append("\n");
      }
    }
    Path file = dir.resolve("examples.sh");
    Files.writeString(file, script);
    ProcessBuilder builder = new ProcessBuilder("bash", file.toString()).directory(work.toFile());
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(name -> name.startsWith("SGM_"));
    env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
    env.put("XDG_DATA_HOME", dir.resolve("data").toString());
    env.put("XDG_CONFIG_HOME", dir.resolve("config").toString());
    env.put("XDG_CACHE_HOME", Path.of("target", "examples-cache").toAbsolutePath().toString());
    env.put("JAVA_HOME", System.getProperty("java.home"));
    // Debian's Python, which CI gives grpcio and protobuf, ahead of any other on the PATH.
    env.put("PATH", "/usr/bin:/bin:" + env.getOrDefault("PATH", ""));
    Process process =
        builder
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("session.log").toFile())
            .start();
    if (!process.waitFor(15, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      fail(document + ": the examples did not finish within 15 minutes");
    }
    for (int i = 0; i < steps.size(); i++) {
      check(
          document,
          steps.get(i),
          out.resolve(i + ".out"),
          out.resolve(i + ".err"),
          out.resolve(i + ".exit"));
    }
  }

  private static void check(Path document, Step step, Path out, Path err, Path exit)
      throws IOException {
    String where = ROOT.relativize(document) + ":" + step.line() + ": " + step.command();
    assertTrue(Files.exists(exit), where + "\nnot run: an earlier command stopped the session");
    int code = Integer.parseInt(Files.readString(exit).strip());
    String stdout = Files.readString(out, StandardCharsets.UTF_8);
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    String detail = where + "\nexit " + code + "\nstdout: " + stdout + "\nstderr: " + stderr;
    String shown = step.shown();
    int expectedCode = 0;
    if (shown != null) {
      Matcher withExit = EXIT.matcher(shown);
      if (withExit.matches()) {
        shown = withExit.group(1);
        expectedCode = Integer.parseInt(withExit.group(2));
      }
    }
    assertEquals(expectedCode, code, detail);
    if (shown == null) {
      return;
    }
    JsonNode shownJson = null;
    if (shown.startsWith("{") || shown.startsWith("[")) {
      try {
        shownJson = Json.parse(shown);
      } catch (RuntimeException e) {
        // Text that starts like JSON, such as a Python list.
      }
    }
    if (shownJson != null) {
      JsonNode actual;
      try {
        actual = Json.parse(stdout);
      } catch (RuntimeException e) {
        throw new AssertionError(detail + "\nnot JSON: " + e.getMessage(), e);
      }
      String mismatch = mismatch(shownJson, actual, "");
      assertTrue(mismatch == null, detail + "\n" + mismatch);
    } else {
      String text = stderr + stdout;
      int from = 0;
      for (String piece : shown.split("…")) {
        String part = piece.strip();
        int at = text.indexOf(part, from);
        assertTrue(at >= 0, detail + "\nmissing, in order: " + part);
        from = at + part.length();
      }
    }
  }

  /** Where {@code actual} differs from what {@code shown} shows of it, or null. */
  static String mismatch(JsonNode shown, JsonNode actual, String path) {
    if (shown.isObject()) {
      if (!actual.isObject()) {
        return path + ": not an object: " + actual;
      }
      for (Map.Entry<String, JsonNode> field : shown.properties()) {
        String at = path + "." + field.getKey();
        if (!actual.has(field.getKey())) {
          return at + ": missing";
        }
        String inner = mismatch(field.getValue(), actual.get(field.getKey()), at);
        if (inner != null) {
          return inner;
        }
      }
      return null;
    }
    if (shown.isArray()) {
      if (!actual.isArray() || actual.size() != shown.size()) {
        return path + ": expected " + shown.size() + " elements: " + actual;
      }
      for (int i = 0; i < shown.size(); i++) {
        String inner = mismatch(shown.get(i), actual.get(i), path + "[" + i + "]");
        if (inner != null) {
          return inner;
        }
      }
      return null;
    }
    if (shown.isTextual() && shown.asText().contains("…")) {
      String regex = Pattern.quote(shown.asText()).replace("…", "\\E.*\\Q");
      return actual.isTextual() && actual.asText().matches("(?s)" + regex)
          ? null
          : path + ": " + actual + " is not " + shown;
    }
    if (shown.isNumber() && actual.isNumber()) {
      return shown.decimalValue().compareTo(actual.decimalValue()) == 0
          ? null
          : path + ": " + actual + " is not " + shown;
    }
    return shown.equals(actual) ? null : path + ": " + actual + " is not " + shown;
  }
}
