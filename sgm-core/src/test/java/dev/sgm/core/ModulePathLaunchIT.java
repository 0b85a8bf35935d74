package dev.sgm.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Launches the packaged jars the way users do, {@code java --module-path ... -m dev.sgm.core/...},
 * because tests on the class path hide module mistakes (missing {@code uses}, {@code opens},
 * service declarations).
 */
class ModulePathLaunchIT {
  private static List<String> command(String... args) throws IOException {
    Path target = Path.of("target");
    Path jar;
    try (Stream<Path> files = Files.list(target)) {
      jar =
          files
              .filter(p -> p.getFileName().toString().matches("sgm-core-[^-]+.*\\.jar"))
              .filter(p -> !p.getFileName().toString().endsWith("-sources.jar"))
              .findFirst()
              .orElseThrow();
    }
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    // As bin/sgm launches it: without this the JVM warns on standard error, which the tests read
    // with standard output, in the middle of an output line.
    command.add("--enable-native-access=org.apache.lucene.core");
    command.add("--module-path");
    command.add(jar + java.io.File.pathSeparator + target.resolve("lib"));
    command.add("--module");
    command.add("dev.sgm.core/dev.sgm.core.Main");
    command.addAll(List.of(args));
    return command;
  }

  private static String run(String stdin, int expectedExit, String... args) throws Exception {
    Process process = new ProcessBuilder(command(args)).redirectErrorStream(true).start();
    try (OutputStream in = process.getOutputStream()) {
      in.write(stdin.getBytes(StandardCharsets.UTF_8));
    }
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(60, TimeUnit.SECONDS));
    assertEquals(expectedExit, process.exitValue(), output);
    return output;
  }

  @Test
  void theDemoRunsOnTheModulePath() throws Exception {
    String output = run("", 0, "--memory", "demo");
    assertTrue(output.contains("capabilities: [core]"), output);
    assertTrue(output.contains("\"created\" : true"), output);
    assertTrue(output.contains("\"code\" : \"invalid_record\""), output);
    assertTrue(
        output.contains("\"total\" : 2"), "descendants retrieve finds both records: " + output);
  }

  @Test
  void discoveryWorksOnTheModulePath() throws Exception {
    String output = run("", 0, "--memory", "discover");
    JsonNode discovery = Json.parse(output.substring(output.indexOf('{')));
    assertEquals("core", discovery.path("capabilities").get(0).asText());
    assertEquals("0.1.0", discovery.path("protocol_version").asText());
  }

  @Test
  void theOperationsShellAnswersOneLinePerRequest(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    String input =
        "{\"op\":\"store\",\"request\":{\"record\":{\"id\":\"a\",\"type\":\"note\","
            + "\"scope\":{\"project\":\"p\"},\"provenance\":{\"agent\":\"x\"},\"metadata\":{\"n\":1.0}}}}\n"
            + "{\"op\":\"read\",\"request\":{\"scope\":{\"project\":\"p\"},\"id\":\"a\"}}\n"
            + "{\"op\":\"read\",\"request\":{\"scope\":{\"project\":\"p\"},\"id\":\"missing\"}}\n";
    String output = run(input, 1, "--data", dir.toString(), "ops");
    List<String> lines = output.lines().filter(l -> l.startsWith("{")).toList();
    assertEquals(3, lines.size(), output);
    assertEquals(
        "{\"n\":1.0}", Json.write(Json.parse(lines.get(1)).path("record").path("metadata")));
    assertEquals("not_found", Json.parse(lines.get(2)).path("error").path("code").asText());
  }
}
