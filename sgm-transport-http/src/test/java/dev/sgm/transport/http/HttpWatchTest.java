package dev.sgm.transport.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /v1/watch} with real clients: curl receives events as they commit, resumes with {@code
 * Last-Event-ID} without a gap or a repeat, and sees heartbeats; bad cursors are refused before the
 * stream opens; and 1,000 clients that connect and leave free what they held.
 */
class HttpWatchTest {
  private static HttpServers.Running server;

  @BeforeAll
  static void start() throws Exception {
    server = HttpServers.start("watch.heartbeat-ms", "200");
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static void store(String project, String id) {
    server
        .client()
        .call(
            "store",
            Json.parse(
                ("{'record': {'id': '"
                        + id
                        + "', 'type': 'note', 'scope': {'project': '"
                        + project
                        + "'}, 'provenance': {'agent': 'w'}}}")
                    .replace('\'', '"')));
  }

  private static String present(String project) {
    return server
        .client()
        .call("changes", Json.parse("{\"scope\": {\"project\": \"" + project + "\"}}"))
        .path("next")
        .asText();
  }

  /** One server-sent event: its type, id and data; a comment has type ":". */
  private record Sse(String event, String id, String data) {}

  private static List<Sse> parse(String text) {
    List<Sse> events = new ArrayList<>();
    for (String frame : text.split("\n\n")) {
      String event = "message";
      String id = null;
      StringBuilder data = new StringBuilder();
      boolean comment = false;
      for (String line : frame.split("\n")) {
        if (line.startsWith(":")) {
          comment = true;
        } else if (line.startsWith("event: ")) {
          event = line.substring(7);
        } else if (line.startsWith("id: ")) {
          id = line.substring(4);
        } else if (line.startsWith("data: ")) {
          data.append(line.substring(6));
        }
      }
      if (comment && data.isEmpty()) {
        events.add(new Sse(":", null, frame));
      } else if (!data.isEmpty()) {
        events.add(new Sse(event, id, data.toString()));
      }
    }
    return events;
  }

  private static Process curl(String project, String lastEventId, int seconds) throws Exception {
    List<String> command = new ArrayList<>(List.of("curl", "-sN", "--max-time", "" + seconds));
    if (lastEventId != null) {
      command.addAll(List.of("-H", "Last-Event-ID: " + lastEventId));
    }
    command.add(server.url() + "/v1/watch?scope=project%3D" + project);
    return new ProcessBuilder(command).redirectErrorStream(true).start();
  }

  private static String output(Process process) throws Exception {
    String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(process.waitFor(30, TimeUnit.SECONDS));
    return text;
  }

  private static List<String> ids(List<Sse> events) {
    List<String> ids = new ArrayList<>();
    for (Sse e : events) {
      if (e.event().equals("message")) {
        ids.add(Json.parse(e.data()).path("id").asText());
      }
    }
    return ids;
  }

  @Test
  void curlFollowsAndResumesWithLastEventId() throws Exception {
    String project = "watch-curl";
    String since = present(project);
    store(project, "a1");
    store(project, "a2");
    Process first = curl(project, since, 3);
    Thread.sleep(1000);
    store(project, "a3");
    store("watch-curl-other", "never");
    List<Sse> events = parse(output(first));
    assertEquals("ready", events.get(0).event(), events::toString);
    assertEquals(List.of("a1", "a2", "a3"), ids(events), "backlog then live, once each");
    assertTrue(events.stream().anyMatch(e -> e.event().equals(":")), "heartbeats: " + events);
    Sse a2 = events.stream().filter(e -> e.data().contains("\"a2\"")).findFirst().orElseThrow();
    JsonNode event = Json.parse(a2.data());
    assertEquals(a2.id(), event.path("cursor").asText(), "the SSE id is the event's cursor");
    assertEquals("stored", event.path("kind").asText());
    // A reconnect with Last-Event-ID resumes right after that event.
    assertEquals(List.of("a3"), ids(parse(output(curl(project, a2.id(), 1)))));
    // Without one it starts at the present: nothing old comes again.
    assertEquals(List.of(), ids(parse(output(curl(project, null, 1)))));
  }

  @Test
  void badCursorsAndScopesAreRefusedBeforeTheStreamOpens() throws Exception {
    Process bad =
        new ProcessBuilder(
                "curl",
                "-s",
                "-w",
                "\n%{http_code}",
                "-H",
                "Last-Event-ID: tampered",
                server.url() + "/v1/watch?scope=project%3Dx")
            .redirectErrorStream(true)
            .start();
    String[] lines = output(bad).split("\n");
    assertEquals("400", lines[lines.length - 1]);
    assertEquals("invalid_request", Json.parse(lines[0]).path("error").path("code").asText());
    Process noScope =
        new ProcessBuilder("curl", "-s", "-w", "\n%{http_code}", server.url() + "/v1/watch")
            .redirectErrorStream(true)
            .start();
    String[] missing = output(noScope).split("\n");
    assertEquals("400", missing[missing.length - 1]);
    assertTrue(missing[0].contains("scope"), missing[0]);
  }

  @Test
  void aThousandClientsThatLeaveFreeTheirStreamsAndThreads() throws Exception {
    URI url = URI.create(server.url());
    // A whole round first: the pools the server grows under this load (Jetty's threads, which
    // stay for a minute once started) are then counted before, and only what each further
    // client leaves behind is growth.
    cycle(url, 1000);
    awaitNoWatches();
    int threadsBefore = Thread.getAllStackTraces().size();
    long started = System.nanoTime();
    cycle(url, 1000);
    long millis = (System.nanoTime() - started) / 1_000_000;
    awaitNoWatches();
    int threadsAfter = Thread.getAllStackTraces().size();
    assertTrue(
        threadsAfter <= threadsBefore + 4,
        "platform threads " + threadsBefore + " before 1000 cycles, " + threadsAfter + " after");
    System.out.println("1000 watch connect/disconnect cycles: " + millis + " ms");
  }

  private static void cycle(URI url, int times) throws Exception {
    byte[] request =
        ("GET /v1/watch?scope=project%3Dcycles HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i < times; i++) {
      try (Socket socket = new Socket(url.getHost(), url.getPort())) {
        OutputStream out = socket.getOutputStream();
        out.write(request);
        out.flush();
        InputStream in = socket.getInputStream();
        StringBuilder seen = new StringBuilder();
        while (!seen.toString().contains("event: ready")) {
          int b = in.read();
          if (b < 0) {
            throw new AssertionError("the stream closed before it was ready: " + seen);
          }
          seen.append((char) b);
        }
      }
    }
  }

  private static void awaitNoWatches() throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.transport().openWatches() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertEquals(0, server.transport().openWatches(), "every stream of a client gone is freed");
  }
}
