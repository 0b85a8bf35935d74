package dev.sgm.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import java.io.BufferedReader;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The floor of the shared-directory benchmark's read, its peer on this machine: the same MCP stdio
 * call answered with no store behind it, once by the process the caller talks to ({@code direct}),
 * and once by a second process that it relays the call to over a Unix-domain socket ({@code relay}
 * and {@code answer}), one length-prefixed JSON frame each way, as the local channel does. Each
 * answers every {@code tools/call} with the same result, one that SGM gave to a read; each parses
 * and writes its JSON like a server would. Only what the hops themselves cost on this machine (the
 * wake-ups, the copies, the JSON) separates the two, so their ratio is the least that a read
 * through another process can cost against one through the holder here.
 *
 * <p>Run by {@link SharedDirectoryBenchmark} as child processes of its JVM: {@code direct RESULT},
 * {@code answer SOCKET RESULT}, {@code relay SOCKET}.
 */
public final class BareMcpRelay {
  private BareMcpRelay() {}

  public static void main(String[] args) throws Exception {
    switch (args[0]) {
      case "direct" -> serveMcp(Json.parse(Files.readString(Path.of(args[1]))), null);
      case "relay" -> {
        SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        channel.connect(UnixDomainSocketAddress.of(Path.of(args[1])));
        serveMcp(null, channel);
      }
      case "answer" -> answer(Path.of(args[1]), Json.parse(Files.readString(Path.of(args[2]))));
      default -> throw new IllegalArgumentException("direct, relay or answer, not " + args[0]);
    }
  }

  /** The command that runs {@code args} in a child JVM on this JVM's module path. */
  static List<String> command(String... args) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.add("--module-path");
    command.add(System.getProperty("jdk.module.path"));
    command.add("--module");
    command.add("dev.sgm.bench/" + BareMcpRelay.class.getName());
    command.addAll(List.of(args));
    return command;
  }

  /**
   * Answers MCP on standard input and output: {@code initialize} with the least a client takes, a
   * {@code tools/call} with {@code result}, or, when {@code holder} is given, with what the holder
   * answers to the call's arguments.
   */
  private static void serveMcp(JsonNode result, SocketChannel holder) throws IOException {
    Frames frames = holder == null ? null : new Frames(holder);
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      JsonNode request = Json.parse(line);
      if (!request.has("id")) {
        continue; // a notification
      }
      ObjectNode response = Json.object();
      response.put("jsonrpc", "2.0");
      response.set("id", request.get("id"));
      if (request.path("method").asText().equals("initialize")) {
        ObjectNode init = response.putObject("result");
        init.put("protocolVersion", request.path("params").path("protocolVersion").asText());
        init.putObject("capabilities").putObject("tools");
        init.putObject("serverInfo").put("name", "bare").put("version", "1");
      } else {
        JsonNode answer = result;
        if (frames != null) {
          ObjectNode message = Json.object();
          message.put("op", request.path("params").path("name").asText());
          message.set("request", request.path("params").path("arguments"));
          frames.write(message);
          answer = frames.read().get("result");
        }
        ObjectNode call = response.putObject("result");
        call.putArray("content").addObject().put("type", "text").put("text", Json.write(answer));
        call.set("structuredContent", answer);
      }
      out.println(Json.write(response));
    }
  }

  /**
   * Answers every frame on {@code socket} with {@code {"result": result}}, a thread a connection.
   */
  private static void answer(Path socket, JsonNode result) throws IOException {
    Files.deleteIfExists(socket);
    ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    server.bind(UnixDomainSocketAddress.of(socket));
    System.out.println("listening"); // the benchmark starts the relay after this line
    System.out.flush();
    while (true) {
      SocketChannel connection = server.accept();
      Thread.ofPlatform()
          .daemon()
          .start(
              () -> {
                Frames frames = new Frames(connection);
                try {
                  for (JsonNode message = frames.read(); ; message = frames.read()) {
                    message.path("request").path("id").asText(); // looked at, as a store would
                    ObjectNode response = Json.object();
                    response.set("result", result);
                    frames.write(response);
                  }
                } catch (IOException e) {
                  // The relay went away.
                }
              });
    }
  }

  /**
   * Blocking length-prefixed JSON frames, with buffers kept for the connection's life: a small
   * frame takes one read call and one write call, as on the local channel.
   */
  private static final class Frames {
    private final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocate(64 * 1024).flip();
    private final ByteBuffer out = ByteBuffer.allocateDirect(64 * 1024);

    Frames(SocketChannel channel) {
      this.channel = channel;
    }

    void write(JsonNode message) throws IOException {
      byte[] body = Json.writeBytes(message);
      out.clear().putInt(body.length).put(body).flip();
      while (out.hasRemaining()) {
        channel.write(out);
      }
    }

    JsonNode read() throws IOException {
      fill(4);
      int length = in.getInt();
      fill(length);
      byte[] body = new byte[length];
      in.get(body);
      return Json.parse(body);
    }

    private void fill(int bytes) throws IOException {
      while (in.remaining() < bytes) {
        in.compact();
        int read = channel.read(in);
        in.flip();
        if (read < 0) {
          throw new EOFException();
        }
      }
    }
  }
}
