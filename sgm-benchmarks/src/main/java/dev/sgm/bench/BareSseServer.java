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
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

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

  /**
   * Threads writing each event, the calling one included ({@code -Dsgm.bench.bare-writers}, 1):
   * each takes an equal share of the connections.
   */
  private static final int WRITERS = Math.max(1, Integer.getInteger("sgm.bench.bare-writers", 1));

  private final ExecutorService helpers =
      Executors.newFixedThreadPool(
          Math.max(1, WRITERS - 1), task -> Thread.ofPlatform().daemon().unstarted(task));
  private final ServerSocketChannel server;
  private final List<SocketChannel> streams = new ArrayList<>();
  private final Thread acceptor;

  BareSseServer() throws IOException {
    server = ServerSocketChannel.open();
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
    acceptor = Thread.ofPlatform().daemon().name("bench-bare-sse").start(this::accept);
  }

  /** How many threads write each event. */
  static int writers() {
    return WRITERS;
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
      int n = streams.size();
      List<Future<?>> parts = new ArrayList<>();
      for (int w = 1; w < WRITERS; w++) {
        List<SocketChannel> part = streams.subList(n * w / WRITERS, n * (w + 1) / WRITERS);
        parts.add(
            helpers.submit(
                () -> {
                  for (SocketChannel channel : part) {
                    write(channel, frame);
                  }
                  return null;
                }));
      }
      for (SocketChannel channel : streams.subList(0, n / WRITERS)) {
        write(channel, frame);
      }
      for (Future<?> part : parts) {
        try {
          part.get();
        } catch (ExecutionException e) {
          throw new IOException(e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException(e);
        }
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
    helpers.shutdownNow();
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
