package dev.sgm.embedding.bge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Launches the packaged plugin and its dependencies on the module path, the way the distribution
 * runs them, and embeds through {@link java.util.ServiceLoader}: tests on the class path hide a
 * missing {@code requires} (automatic modules read only modules in the graph), a missing service
 * declaration, and natives that need {@code --enable-native-access}.
 */
class ModulePathLaunchIT {
  /** What the distribution's launcher grants too (bin/sgm); denied for anything else here. */
  static final String NATIVE_ACCESS =
      "--enable-native-access=ai.djl.tokenizers,com.microsoft.onnxruntime";

  @Test
  void embedsThroughServiceLoaderOnTheModulePath() throws Exception {
    Path target = Path.of("target");
    Path jar;
    try (Stream<Path> files = Files.list(target)) {
      jar =
          files
              .filter(p -> p.getFileName().toString().matches("sgm-embedding-bge-[^-]+.*\\.jar"))
              .filter(p -> !p.getFileName().toString().endsWith("-sources.jar"))
              .findFirst()
              .orElseThrow();
    }
    List<String> command =
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            // A module that reaches native code without being granted it fails instead of warning.
            "--illegal-native-access=deny",
            NATIVE_ACCESS,
            "--module-path",
            jar + File.pathSeparator + target.resolve("lib"),
            "--add-modules",
            "dev.sgm.embedding.bge",
            // The probe itself runs from the class path, like any host that loads the plugin.
            "--class-path",
            target.resolve("test-classes").toString(),
            "dev.sgm.embedding.probe.EmbedProbe",
            "what build tool do we use",
            "The build uses Maven",
            "We had pizza on Friday");
    Path errors = Files.createTempFile("embed-probe", ".err");
    Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
    String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(120, TimeUnit.SECONDS));
    String stderr = Files.readString(errors);
    Files.delete(errors);
    assertEquals(0, process.exitValue(), stdout + stderr);
    assertTrue(stdout.contains("module: dev.sgm.embedding.bge"), stdout);
    assertTrue(stdout.contains("model: bge-small-en-v1.5-q"), stdout);
    assertTrue(stdout.contains("dimensions: 384"), stdout);
    double maven = similarity(stdout, 1);
    double pizza = similarity(stdout, 2);
    assertTrue(maven > pizza + 0.1, "maven " + maven + " vs pizza " + pizza);
    // Quiet: no SLF4J complaint about a missing provider, no native-access warning, no ONNX noise.
    assertFalse(stderr.contains("SLF4J"), stderr);
    assertFalse(stderr.contains("WARNING"), stderr);
    assertEquals("", stderr.strip(), "nothing on standard error");
  }

  private static double similarity(String output, int passage) {
    Matcher m = Pattern.compile("similarity " + passage + ": (\\S+)").matcher(output);
    assertTrue(m.find(), output);
    return Double.parseDouble(m.group(1));
  }
}
