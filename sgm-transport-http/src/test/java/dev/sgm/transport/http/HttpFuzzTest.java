package dev.sgm.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.tck.RequestFuzzer;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * 10,000 mutated requests against a real server on loopback, from fixed seeds: none may answer 5xx,
 * every answer must be the contract's JSON, none may show a stack trace or SQL, and the server must
 * still answer afterwards.
 */
class HttpFuzzTest {
  private static final int REQUESTS = 10_000;
  private static final int WORKERS = 4;

  /**
   * With authentication on, most requests carry a valid token (granting the fuzzed projects), some
   * a mangled one; the limit on failed attempts is lifted so that the run keeps reaching the
   * operations instead of being told to come back later.
   */
  @ParameterizedTest(name = "auth on: {0}")
  @ValueSource(booleans = {false, true})
  void mutatedRequestsGetClearAnswersAndTheServerStaysUp(boolean auth) throws Exception {
    try (HttpServers.Running server =
            auth
                ? HttpServers.start("auth.enabled", "true", "auth.failure-limit", "1000000")
                : HttpServers.start();
        HttpClient http =
            HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        ExecutorService workers = Executors.newFixedThreadPool(WORKERS)) {
      List<Grants.Grant> grants = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        grants.add(Grants.Grant.parse("project=fuzz-" + (15_000 + w) + ":read_write"));
      }
      String authorization =
          auth
              ? "Bearer "
                  + server
                      .runtime()
                      .tokens()
                      .create("fuzzer", grants, Set.of("*"), Sensitivity.SECRET, null)
                      .token()
              : null;
      List<Future<List<String>>> results = new ArrayList<>();
      for (int w = 0; w < WORKERS; w++) {
        long seed = 15_000 + w;
        results.add(
            workers.submit(
                () -> fuzz(http, server.url(), authorization, seed, REQUESTS / WORKERS)));
      }
      List<String> failures = new ArrayList<>();
      for (Future<List<String>> result : results) {
        failures.addAll(result.get());
      }
      assertTrue(
          failures.isEmpty(),
          failures.size() + " bad answers, e.g. " + failures.stream().limit(5).toList());
      HttpRequest.Builder discovery =
          HttpRequest.newBuilder(URI.create(server.url() + "/v1/discovery"));
      if (authorization != null) {
        discovery.header("Authorization", authorization);
      }
      HttpResponse<String> after =
          http.send(discovery.build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, after.statusCode());
      assertEquals("0.1.0", Json.parse(after.body()).path("protocol_version").asText());
    }
  }

  private static List<String> fuzz(
      HttpClient http, String base, String authorization, long seed, int count) throws Exception {
    RequestFuzzer fuzzer = new RequestFuzzer(seed, "fuzz-" + seed);
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      RequestFuzzer.Request request = fuzzer.next();
      String path = "/v1/" + URLEncoder.encode(request.operation(), StandardCharsets.UTF_8);
      HttpRequest.Builder builder =
          HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
      switch (fuzzer.nextInt(20)) {
        case 0 -> builder.header("Content-Type", "text/plain");
        case 1 -> builder.header("Content-Type", "application/json; charset=latin-1");
        case 2 -> builder.header("SGM-Protocol-Version", "x" + fuzzer.nextInt(9));
        case 3 ->
            builder
                .header("SGM-Protocol-Version", "9.0.0")
                .header("Content-Type", "application/json");
        case 4 -> builder.header("Authorization", "Bearer " + "x".repeat(fuzzer.nextInt(300)));
        case 5 -> {
          if (authorization != null) {
            builder.header("Authorization", authorization.substring(0, fuzzer.nextInt(60)));
          }
          builder.header("Content-Type", "application/json");
        }
        default -> {
          if (authorization != null) {
            builder.header("Authorization", authorization);
          }
          builder.header("Content-Type", "application/json");
        }
      }
      builder.POST(HttpRequest.BodyPublishers.ofByteArray(request.bytes()));
      HttpRequest sent = builder.build();
      String problem;
      try {
        problem = problem(send(http, sent));
      } catch (java.io.IOException e) {
        problem = "no answer: " + e + " to " + sent.headers().map();
      }
      if (problem != null) {
        failures.add(
            "seed "
                + seed
                + " #"
                + i
                + " "
                + path
                + " "
                + abbreviate(request.text())
                + " -> "
                + problem);
      }
    }
    return failures;
  }

  private static HttpResponse<String> send(HttpClient http, HttpRequest request)
      throws java.io.IOException, InterruptedException {
    return http.send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** What is wrong with an answer, or null. */
  private static String problem(HttpResponse<String> response) {
    String body = response.body();
    // 501 is the contract's status of unsupported_capability (an operation not offered here).
    boolean unsupported =
        response.statusCode() == 501 && body.contains("\"code\":\"unsupported_capability\"");
    if (response.statusCode() >= 500 && !unsupported) {
      return response.statusCode() + " " + abbreviate(body);
    }
    String leak = RequestFuzzer.leak(body);
    if (leak != null) {
      return "leaked '" + leak + "' in " + abbreviate(body);
    }
    JsonNode json;
    try {
      json = Json.parse(body);
    } catch (RuntimeException e) {
      return "not JSON: " + abbreviate(body);
    }
    if (response.statusCode() >= 400 && !json.path("error").path("code").isTextual()) {
      return "an error without a code: " + abbreviate(body);
    }
    return null;
  }

  private static String abbreviate(String text) {
    return text.length() > 200 ? text.substring(0, 200) + "..." : text;
  }
}
