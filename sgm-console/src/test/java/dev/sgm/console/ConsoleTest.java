package dev.sgm.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The console served by a real HTTP transport: the page at {@code /} and its files under {@code
 * /console/}, each with a policy that keeps the page to this origin; every file a script imports is
 * served; turned off, the API answers as without it.
 */
class ConsoleTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private static SgmRuntime start(String... keysAndValues) throws Exception {
    Map<String, String> options = new HashMap<>();
    options.put(ConfigLoader.STORAGE_MEMORY, "true");
    options.put("http.port", "0");
    options.put("http.log-requests", "false");
    options.put("transports.enabled", "http");
    for (int i = 0; i < keysAndValues.length; i += 2) {
      options.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    return SgmRuntime.open(ConfigLoader.load(options, Map.of()));
  }

  private static String url(SgmRuntime runtime) throws Exception {
    for (Transport transport : runtime.startTransports()) {
      return transport.endpoints().get(0);
    }
    throw new IllegalStateException("no transport started");
  }

  private static HttpResponse<String> get(String url) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void servesThePageAndEveryFileItLoadsWithASameOriginPolicy() throws Exception {
    try (SgmRuntime runtime = start("auth.enabled", "true")) {
      String base = url(runtime);
      HttpResponse<String> page = get(base + "/");
      assertEquals(200, page.statusCode(), page.body());
      assertTrue(page.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
      assertTrue(page.body().contains("<title>SGM console</title>"), page.body());
      String policy = page.headers().firstValue("Content-Security-Policy").orElse("");
      assertTrue(policy.startsWith("default-src 'self'"), policy);
      assertEquals("nosniff", page.headers().firstValue("X-Content-Type-Options").orElse(""));
      // Authentication on, the page still loads (it asks for a token); the API does not.
      assertEquals(401, get(base + "/v1/discovery").statusCode());

      Set<String> loaded = referencedFiles();
      for (String file : loaded) {
        HttpResponse<String> response = get(base + "/console/" + file);
        assertEquals(200, response.statusCode(), file);
        assertEquals(
            Console.contentType(file), response.headers().firstValue("Content-Type").orElse(""));
        assertEquals(policy, response.headers().firstValue("Content-Security-Policy").orElse(""));
      }
      assertTrue(
          loaded.containsAll(Set.of("app.js", "pages/record.js", "diff.js")), loaded.toString());
      // A path the console does not have is the API's, which asks for a token first.
      assertEquals(401, get(base + "/console/nothing.js").statusCode());
    }
  }

  /**
   * The files the page and its scripts name (link/script tags, relative imports), followed from
   * index.html: a file missing from the console's list fails here, not in a person's browser.
   */
  private static Set<String> referencedFiles() throws IOException {
    Set<String> seen = new HashSet<>();
    java.util.ArrayDeque<String> queue = new java.util.ArrayDeque<>();
    queue.add("index.html");
    Pattern html = Pattern.compile("(?:href|src)=\"/console/([^\"]+)\"");
    Pattern imports = Pattern.compile("(?:from|import)\\s+\"(\\.{1,2}/[^\"]+)\"");
    while (!queue.isEmpty()) {
      String file = queue.poll();
      if (!seen.add(file)) {
        continue;
      }
      String text = read(file);
      Matcher m = (file.endsWith(".html") ? html : imports).matcher(text);
      while (m.find()) {
        String target = m.group(1);
        if (file.endsWith(".js")) {
          target = URI.create("x:/" + file).resolve(target).getPath().substring(1);
        }
        queue.add(target);
      }
    }
    return seen;
  }

  private static String read(String file) throws IOException {
    try (InputStream in = Console.class.getResourceAsStream("web/" + file)) {
      if (in == null) {
        throw new IOException(file + " is named but not in the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Test
  void everyFileListedIsServedAndTheConsoleNamesNothingElse() throws Exception {
    Set<String> referenced = referencedFiles();
    assertEquals(Set.copyOf(Console.FILES), referenced);
  }

  @Test
  void turnedOffTheRootIsTheApisNotFoundAgain() throws Exception {
    try (SgmRuntime runtime = start("webapps.disabled", "console")) {
      String base = url(runtime);
      HttpResponse<String> root = get(base + "/");
      assertEquals(404, root.statusCode());
      assertTrue(root.body().contains("\"not_found\""), root.body());
      assertEquals(404, get(base + "/console/app.js").statusCode());
      assertEquals(200, get(base + "/v1/discovery").statusCode());
    }
  }
}
