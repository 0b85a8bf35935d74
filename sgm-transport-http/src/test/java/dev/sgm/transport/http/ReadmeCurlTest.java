package dev.sgm.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the README's HTTP examples verbatim with curl against a real server, and checks each
 * response against the {@code # →} line the README shows under it (every field shown must be there,
 * equal), so the README cannot go stale.
 */
class ReadmeCurlTest {
  private static final String README_URL = "http://127.0.0.1:7410";

  private record Example(String command, JsonNode expected) {}

  private static List<Example> examples() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"));
    int start = readme.indexOf("<!-- http-examples -->");
    int end = readme.indexOf("<!-- /http-examples -->");
    assertTrue(start >= 0 && end > start, "the README marks its HTTP examples");
    List<Example> examples = new ArrayList<>();
    String command = null;
    for (String line : readme.substring(start, end).lines().toList()) {
      if (line.startsWith("curl ")) {
        command = line;
      } else if (line.startsWith("# → ") && command != null) {
        examples.add(new Example(command, Json.parse(line.substring(4))));
        command = null;
      }
    }
    assertTrue(examples.size() >= 4, "store, read, retrieve and an error: " + examples.size());
    return examples;
  }

  @Test
  void theReadmeExamplesWorkAsWritten() throws Exception {
    try (HttpServers.Running server = HttpServers.start()) {
      for (Example example : examples()) {
        String command = example.command().replace(README_URL, server.url());
        Process curl = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true).start();
        String output = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(curl.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, curl.exitValue(), command + "\n" + output);
        assertContains(example.expected(), Json.parse(output), "", example.command());
      }
    }
  }

  /**
   * Every field of {@code expected} is in {@code actual} with the same value; arrays element-wise.
   */
  private static void assertContains(
      JsonNode expected, JsonNode actual, String path, String command) {
    if (expected.isObject()) {
      for (Map.Entry<String, JsonNode> field : expected.properties()) {
        if (!actual.has(field.getKey())) {
          fail(command + "\nmissing " + path + "." + field.getKey() + " in " + actual);
        }
        assertContains(
            field.getValue(), actual.get(field.getKey()), path + "." + field.getKey(), command);
      }
    } else if (expected.isArray()) {
      assertTrue(
          actual.isArray() && actual.size() >= expected.size(),
          command + "\n" + path + ": " + actual);
      for (int i = 0; i < expected.size(); i++) {
        assertContains(expected.get(i), actual.get(i), path + "[" + i + "]", command);
      }
    } else {
      assertEquals(Json.write(expected), Json.write(actual), command + "\nat " + path);
    }
  }
}
