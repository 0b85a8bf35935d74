package dev.sgm.bench;

import java.io.BufferedReader;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Many SSE watch connections ({@code GET /v1/watch}) held by the benchmark itself, with the arrival
 * time of every event. By default one thread reads them all through a selector, taking the time as
 * each read returns, the way a load generator does ({@code -Dsgm.bench.readers} splits them between
 * more such threads): on two cores, a thread per connection ({@code threads}, one virtual thread
 * each reading lines) spends the CPU the server needs and adds its own scheduling to every figure.
 */
final class SseClients implements AutoCloseable {
  /** Where a reader reports that an event reached it. */
  @FunctionalInterface
  interface Arrival {
    void arrived(String id, long nanos);
  }

  private static final byte[] ID = "\"id\":\"".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] READY = "event: ready".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EVENT = "data: {\"cursor\"".getBytes(StandardCharsets.US_ASCII);

  /** Reader threads, each with a selector of its own ({@code -Dsgm.bench.readers}, 1). */
  private static final int READERS = Math.max(1, Integer.getInteger("sgm.bench.readers", 1));

  private final List<Closeable> connections = new ArrayList<>();

  private final List<Selector> selectors = new ArrayList<>();

  private SseClients() {}

  /** How many threads read the connections, each through a selector of its own. */
  static int readers() {
    return READERS;
  }

  /**
   * Opens {@code count} watches of {@code project} and returns once each has its {@code ready}
   * event; {@code arrival} (or null) hears of every change event.
   */
  static SseClients open(URI url, String project, int count, boolean selector, Arrival arrival)
      throws Exception {
    SseClients clients = new SseClients();
    CountDownLatch ready = new CountDownLatch(count);
    byte[] request =
        ("GET /v1/watch?scope=project%3D" + project + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    InetSocketAddress address = new InetSocketAddress(url.getHost(), url.getPort());
    if (selector) {
      clients.openSelected(address, request, count, ready, arrival);
    } else {
      clients.openThreaded(address, request, count, ready, arrival);
    }
    ready.await();
    return clients;
  }

  private void openSelected(
      InetSocketAddress address, byte[] request, int count, CountDownLatch ready, Arrival arrival)
      throws IOException {
    for (int r = 0; r < READERS; r++) {
      selectors.add(Selector.open());
    }
    for (int i = 0; i < count; i++) {
      SocketChannel channel = SocketChannel.open(address);
      connections.add(channel);
      ByteBuffer out = ByteBuffer.wrap(request);
      while (out.hasRemaining()) {
        channel.write(out);
      }
      channel.configureBlocking(false);
      channel.register(selectors.get(i % READERS), SelectionKey.OP_READ, new Lines(ready, arrival));
    }
    for (Selector selector : selectors) {
      Thread.ofPlatform().daemon().name("bench-sse-reader").start(() -> read(selector));
    }
  }

  private static void read(Selector selector) {
    ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
    byte[] bytes = new byte[buffer.capacity()];
    try {
      while (selector.isOpen()) {
        selector.select();
        for (SelectionKey key : selector.selectedKeys()) {
          SocketChannel channel = (SocketChannel) key.channel();
          buffer.clear();
          int read;
          try {
            read = channel.read(buffer);
          } catch (IOException e) {
            read = -1;
          }
          long now = System.nanoTime();
          if (read < 0) {
            key.cancel();
            continue;
          }
          buffer.flip();
          buffer.get(bytes, 0, read);
          ((Lines) key.attachment()).feed(bytes, read, now);
        }
        selector.selectedKeys().clear();
      }
    } catch (IOException | ClosedSelectorException e) {
      // Closed by the benchmark.
    }
  }

  private void openThreaded(
      InetSocketAddress address, byte[] request, int count, CountDownLatch ready, Arrival arrival)
      throws IOException {
    for (int i = 0; i < count; i++) {
      Socket socket = new Socket(address.getAddress(), address.getPort());
      connections.add(socket);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      Thread.ofVirtual().start(() -> readLines(socket, ready, arrival));
    }
  }

  /** Reads one connection a line at a time, on a thread of its own, until it closes. */
  private static void readLines(Socket socket, CountDownLatch ready, Arrival arrival) {
    try (BufferedReader in =
        new BufferedReader(
            new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8))) {
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.startsWith("event: ready")) {
          ready.countDown();
        } else if (arrival != null && line.startsWith("data: {\"cursor\"")) {
          int at = line.indexOf("\"id\":\"");
          if (at > 0) {
            arrival.arrived(line.substring(at + 6, line.indexOf("\"", at + 6)), System.nanoTime());
          }
        }
      }
    } catch (IOException e) {
      // Closed by the benchmark.
    }
  }

  @Override
  public void close() throws IOException {
    for (Selector selector : selectors) {
      selector.close();
    }
    for (Closeable connection : connections) {
      connection.close();
    }
  }

  /** Splits one connection's bytes into lines and acts on the two kinds the benchmark needs. */
  private static final class Lines {
    private final CountDownLatch ready;
    private final Arrival arrival;
    private byte[] line = new byte[1024];
    private int length;

    Lines(CountDownLatch ready, Arrival arrival) {
      this.ready = ready;
      this.arrival = arrival;
    }

    void feed(byte[] bytes, int count, long now) {
      for (int i = 0; i < count; i++) {
        byte b = bytes[i];
        if (b == '\n') {
          line(now);
          length = 0;
        } else {
          if (length == line.length) {
            line = Arrays.copyOf(line, length * 2);
          }
          line[length++] = b;
        }
      }
    }

    private void line(long now) {
      if (startsWith(READY)) {
        ready.countDown();
      } else if (arrival != null && startsWith(EVENT)) {
        int at = indexOf(ID);
        if (at > 0) {
          int from = at + ID.length;
          int to = from;
          while (to < length && line[to] != '"') {
            to++;
          }
          arrival.arrived(new String(line, from, to - from, StandardCharsets.UTF_8), now);
        }
      }
    }

    private boolean startsWith(byte[] prefix) {
      return length >= prefix.length
          && Arrays.equals(line, 0, prefix.length, prefix, 0, prefix.length);
    }

    private int indexOf(byte[] needle) {
      for (int i = 0; i + needle.length <= length; i++) {
        if (Arrays.equals(line, i, i + needle.length, needle, 0, needle.length)) {
          return i;
        }
      }
      return -1;
    }
  }
}
