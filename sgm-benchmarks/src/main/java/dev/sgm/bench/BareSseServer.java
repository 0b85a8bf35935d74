package dev.sgm.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The floor of SSE fan-out on this machine, the watch benchmark's peer: a loopback server that
 * answers every request with an event stream and, when told, writes one frame to every connection
 * in turn from the calling thread, one {@code write} call each. No server can deliver to a
 * connection with less than that call, so its latency to the same clients, read the same way, is
 * what the machine allows.
 */
final class BareSseServer implements AutoCloseable {
  private static final byte[] HEAD =
      ("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\n\r\n"
              + "event: ready\ndata: {}\n\n")
          .getBytes(StandardCharsets.US_ASCII);

  private final ServerSocketChannel server;
  private final List<SocketChannel> streams = new ArrayList<>();
  private final Thread acceptor;

  BareSseServer() throws IOException {
    server = ServerSocketChannel.open();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    acceptor = Thread.ofPlatform().daemon().name("bench-bare-sse").start(this::accept);
  }

  /** Where clients connect. */
  URI url() throws IOException {
    InetSocketAddress address = (InetSocketAddress) server.getLocalAddress();
    return URI.create("http://127.0.0.1:" + address.getPort() + "/");
  }

  private void accept() {
    ByteBuffer request = ByteBuffer.allocate(4096);
    try {
      while (server.isOpen()) {
        SocketChannel channel = server.accept();
        // The request is one small packet; the stream starts once it has come.
        request.clear();
        while (!ends(request) && channel.read(request) > 0) {
          // read on
        }
        write(channel, HEAD);
        synchronized (streams) {
          streams.add(channel);
        }
      }
    } catch (IOException e) {
      // Closed by the benchmark.
    }
  }

  private static boolean ends(ByteBuffer request) {
    int n = request.position();
    return n >= 4
        && request.get(n - 4) == '\r'
        && request.get(n - 3) == '\n'
        && request.get(n - 2) == '\r'
        && request.get(n - 1) == '\n';
  }

  /** Writes {@code frame} to every open stream, in the order they opened. */
  void publish(byte[] frame) throws IOException {
    synchronized (streams) {
      for (SocketChannel channel : streams) {
        write(channel, frame);
      }
    }
  }

  private static void write(SocketChannel channel, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    synchronized (streams) {
      for (SocketChannel channel : streams) {
        channel.close();
      }
      streams.clear();
    }
    acceptor.interrupt();
  }
}
