package dev.sgm.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Grants;
import dev.sgm.api.Sensitivity;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A watch opened with a token ends, with an {@code error} event naming {@code unauthenticated},
 * once its token is revoked: within the token cache's 2 s and the stream's one-second check,
 * whether or not anything is written meanwhile.
 */
class HttpWatchRevocationTest {
  @Test
  void aWatchEndsWithTheErrorOnceItsTokenIsRevoked() throws Exception {
    try (HttpServers.Running server = HttpServers.start("auth.enabled", "true")) {
      var created =
          server
              .runtime()
              .tokens()
              .create(
                  "watcher",
                  List.of(Grants.Grant.parse("project=watched:read")),
                  Set.of("*"),
                  Sensitivity.SECRET,
                  null);
      HttpResponse<InputStream> stream =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(
                          URI.create(server.url() + "/v1/watch?scope=project%3Dwatched"))
                      .header("Authorization", "Bearer " + created.token())
                      .build(),
                  HttpResponse.BodyHandlers.ofInputStream());
      assertEquals(200, stream.statusCode());
      try (BufferedReader events =
          new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
        server.runtime().tokens().revoke(created.id());
        String event = null;
        StringBuilder seen = new StringBuilder();
        for (String line = events.readLine(); line != null; line = events.readLine()) {
          seen.append(line).append('\n');
          if (line.startsWith("event: ")) {
            event = line.substring("event: ".length());
          }
          if (line.startsWith("data: ") && "error".equals(event)) {
            assertTrue(line.contains("unauthenticated"), line);
            break;
          }
        }
        assertEquals("error", event, seen.toString());
        String rest = events.readLine();
        while (rest != null && rest.isEmpty()) {
          rest = events.readLine();
        }
        assertEquals(null, rest, "the stream is closed after the error");
      }
    }
  }
}
