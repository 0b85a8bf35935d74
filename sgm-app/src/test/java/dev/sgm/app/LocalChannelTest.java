package dev.sgm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The channel's framing over a real Unix-domain socket: messages of every size come out as they
 * went in (parsed in place when they fit the buffer, read whole when they do not), back to back, in
 * both directions, and a silent other end trips the client's timeout.
 */
class LocalChannelTest {
  @TempDir Path dir;

  private ServerSocketChannel server;
  private LocalChannel.Framed holderEnd;
  private LocalChannel.Framed clientEnd;

  @BeforeEach
  void listen() throws Exception {
    server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(LocalChannel.socketPath(dir)));
  }

  /** Connects both ends; the client gives up on an answer after {@code timeoutMillis}. */
  private void connect(long timeoutMillis) throws Exception {
    clientEnd =
        LocalChannel.connect(
            LocalChannel.socketPath(dir), TimeUnit.MILLISECONDS.toNanos(timeoutMillis));
    holderEnd = new LocalChannel.Framed(server.accept());
  }

  @AfterEach
  void close() throws Exception {
    if (clientEnd != null) {
      clientEnd.close();
      holderEnd.close();
    }
    server.close();
  }

  /** A message whose JSON is about {@code bytes} long, with text that is not all ASCII. */
  private static ObjectNode message(int n, int bytes) {
    ObjectNode message = Json.object().put("n", n).put("price", Json.parse("1.50").asText());
    message.set("exact", Json.parse("12345678901234567890.000"));
    message.put("text", "caf\u00e9 \u2014 ".repeat(Math.max(1, bytes / 10)));
    return message;
  }

  @Test
  void messagesOfEverySizeArriveAsSentBackToBackInBothDirections() throws Exception {
    // Long enough for 300 KB echoed on a busy machine: this test is about the framing.
    connect(30_000);
    List<ObjectNode> sent = new ArrayList<>();
    // Around the 64 KiB buffer, well over it, and small ones after a large one.
    int[] sizes = {10, 1_000, 65_000, 65_536, 70_000, 300_000, 10, 5_000, 10};
    for (int i = 0; i < sizes.length; i++) {
      sent.add(message(i, sizes[i]));
    }
    // The holder's end reads every message, then answers with all of them, while the client
    // writes them all and then reads. Each end is used by one thread at a time, as a call uses it:
    // a client's end waits on one selector, for reading or for writing, not for both at once.
    Thread holder =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    List<JsonNode> received = new ArrayList<>();
                    for (int i = 0; i < sent.size(); i++) {
                      received.add(holderEnd.read());
                    }
                    for (JsonNode message : received) {
                      holderEnd.write(message);
                    }
                  } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                  }
                });
    for (ObjectNode message : sent) {
      clientEnd.write(message);
    }
    for (ObjectNode message : sent) {
      assertEquals(Json.write(message), Json.write(clientEnd.read()));
    }
    holder.join(5_000);
  }

  @Test
  void aClosedEndIsTheEndOfTheMessagesAndASilentOneTripsTheTimeout() throws Exception {
    connect(300);
    assertThrows(LocalChannel.Silent.class, () -> clientEnd.read());
    clientEnd.write(message(1, 10));
    clientEnd.close();
    assertEquals(1, holderEnd.read().path("n").asInt());
    assertNull(holderEnd.read());
  }
}
