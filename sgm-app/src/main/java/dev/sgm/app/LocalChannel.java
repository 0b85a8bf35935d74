package dev.sgm.app;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.io.EOFException;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The channel between the process that holds a data directory and the others on the machine: a
 * Unix-domain socket that only the directory's owner can reach, carrying one JSON message per frame
 * (a 4-byte big-endian length, then UTF-8 JSON).
 *
 * <p>A request is {@code {"op", "origin", "request"}}; its response is {@code {"result"}}, {@code
 * {"error"}} (the contract's error object), or {@code {"closing": true}} when the holder is
 * shutting down and did not run the request, which can then be sent again to the next holder.
 * Before the response, a call that runs long gets an interim frame every {@link #INTERIM_NANOS}:
 * {@code {"progress": {"done", "total"}}} from an operation that reports it, else {@code
 * {"working": true}}; a client that hears nothing for its {@value #TIMEOUT_KEY} knows that the
 * holder has stopped answering, however long the call itself may take.
 */
final class LocalChannel {
  /** The holder's lock: whoever holds it on this file holds the directory. */
  static final String LOCK_FILE = "sgm.holder.lock";

  /** The owner-only directory of the socket, in the data directory. */
  static final String CHANNEL_DIRECTORY = "sgm.channel";

  /** The socket's name in its directory. */
  static final String SOCKET_FILE = "sgm.sock";

  /** What names the channel's own operations: no SGM operation's name starts with it. */
  static final String CHANNEL_PREFIX = "#";

  /** Operations of the channel itself, not SGM operations; each only reads. */
  static final String OPERATIONS = "#operations";

  /** The declared effects of the holder's operations, by name. */
  static final String EFFECTS = "#effects";

  static final String CONTENT = "#content";
  static final String DESCRIBE = "#describe";

  /** Rebuilds the holder's search index, with progress frames (see {@code sgm reindex}). */
  static final String REINDEX = "#reindex";

  /** How long a client waits without hearing from the holder before a call fails. */
  static final String TIMEOUT_KEY = "channel.timeout-ms";

  static final long DEFAULT_TIMEOUT_MS = 10_000;

  /**
   * The shortest timeout allowed: a few interim frames' worth, so that a long call never trips it.
   */
  static final long MIN_TIMEOUT_MS = 1_000;

  /** How often the holder tells a client that its long call is still running. */
  static final long INTERIM_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(250);

  /** Frames larger than this are refused: more than a full batch of the largest records. */
  private static final int MAX_FRAME = Integer.MAX_VALUE - 8;

  /** The longest socket path the kernel takes (sun_path is 108 bytes with its terminating NUL). */
  private static final int MAX_SOCKET_PATH = 107;

  private static final java.util.Set<java.nio.file.attribute.PosixFilePermission>
      OWNER_ONLY_DIRECTORY = PosixFilePermissions.fromString("rwx------");

  private LocalChannel() {}

  /**
   * Where the socket of {@code dataDir} is: in an owner-only directory inside it, or, when that
   * path is too long for a socket, in an owner-only per-user directory under the runtime or
   * temporary directory, named by a hash of the data directory so that every process finds the same
   * one.
   */
  static Path socketPath(Path dataDir) throws IOException {
    Path dir = dataDir.resolve(CHANNEL_DIRECTORY);
    Path inside = dir.resolve(SOCKET_FILE);
    if (inside.toString().getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH) {
      String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
      String base =
          System.getenv().getOrDefault("XDG_RUNTIME_DIR", System.getProperty("java.io.tmpdir"));
      dir = Path.of(base, "sgm-" + user);
      inside = dir.resolve(hash(dataDir.toString()).substring(0, 32) + ".sock");
    }
    privateDirectory(dir);
    return inside;
  }

  /**
   * Makes {@code dir} (created owner-only if missing) reachable by its owner only, and refuses one
   * that another user owns: a socket there could be another user's.
   */
  static void privateDirectory(Path dir) throws IOException {
    boolean posix = Files.getFileStore(dir.getParent()).supportsFileAttributeView("posix");
    if (!posix) {
      Files.createDirectories(dir);
      return;
    }
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIRECTORY));
    } catch (java.nio.file.FileAlreadyExistsException e) {
      // Made by an earlier process; checked below like any other.
    }
    String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
    if (!owner.equals(System.getProperty("user.name"))) {
      throw new IOException(dir + " belongs to " + owner + ", not to this user");
    }
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException(dir + " is not a directory");
    }
    Files.setPosixFilePermissions(dir, OWNER_ONLY_DIRECTORY);
  }

  /** Makes {@code file} readable and writable by its owner only. */
  static void ownerOnly(Path file) throws IOException {
    if (Files.getFileStore(file.getParent()).supportsFileAttributeView("posix")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
  }

  /**
   * Connects a client's end to {@code socket}. Every wait on it (connecting, writing, reading)
   * fails with {@link Silent} after {@code timeoutNanos} without a byte moving. (Polling for a fast
   * answer before sleeping saves a wake-up in isolation, but on two cores it took the CPU that the
   * holder and the caller need, and made calls slower end to end, so it is not done.)
   */
  static Framed connect(Path socket, long timeoutNanos) throws IOException {
    SocketChannel channel = SocketChannel.open(StandardProtocolFamily.UNIX);
    Framed framed;
    try {
      channel.configureBlocking(false);
      framed = new Framed(channel, timeoutNanos);
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
    try {
      if (!channel.connect(UnixDomainSocketAddress.of(socket))) {
        framed.await(SelectionKey.OP_CONNECT);
        while (!channel.finishConnect()) {
          framed.await(SelectionKey.OP_CONNECT);
        }
      }
      return framed;
    } catch (IOException | RuntimeException e) {
      framed.close();
      throw e;
    }
  }

  /**
   * The other end moved no byte for the whole timeout: it is alive (it holds the socket) but
   * silent.
   */
  static final class Silent extends IOException {
    Silent() {
      super("no answer within the timeout", null);
    }
  }

  /**
   * One end of a connection, with buffers kept for its life: a message usually takes one read call
   * and one write call, which is most of what a fast call through the channel costs. The holder's
   * end blocks; a client's end does not block in the kernel (see {@link #connect}). One thread at a
   * time uses an end, as a call does (write, then read): a client's end waits on one selector for
   * one operation at a time.
   */
  static final class Framed implements java.io.Closeable {
    private static final int BUFFER = 64 * 1024;

    private final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocateDirect(BUFFER).flip();
    private final ByteBuffer out = ByteBuffer.allocateDirect(BUFFER);

    /** Zero on the holder's (blocking) end. */
    private final long timeoutNanos;

    private final Selector selector;

    /** The holder's end of an accepted connection: blocking. */
    Framed(SocketChannel channel) {
      this.channel = channel;
      this.timeoutNanos = 0;
      this.selector = null;
    }

    private Framed(SocketChannel channel, long timeoutNanos) throws IOException {
      this.channel = channel;
      this.timeoutNanos = timeoutNanos;
      this.selector = Selector.open();
    }

    boolean isOpen() {
      return channel.isOpen();
    }

    /** Sleeps until {@code operation} can go on, or throws {@link Silent} after the timeout. */
    private void await(int operation) throws IOException {
      SelectionKey key = channel.keyFor(selector);
      if (key == null) {
        key = channel.register(selector, operation);
      } else {
        key.interestOps(operation);
      }
      long deadline = System.nanoTime() + timeoutNanos;
      try {
        while (true) {
          long left = deadline - System.nanoTime();
          if (left <= 0) {
            throw new Silent();
          }
          if (selector.select(Math.max(1, (left + 999_999) / 1_000_000)) > 0
              || !selector.selectedKeys().isEmpty()) {
            selector.selectedKeys().clear();
            return;
          }
          if (!channel.isOpen()) {
            throw new java.nio.channels.AsynchronousCloseException();
          }
        }
      } catch (java.nio.channels.ClosedSelectorException e) {
        throw new java.nio.channels.AsynchronousCloseException();
      }
    }

    void write(JsonNode message) throws IOException {
      byte[] body = Json.writeBytes(message);
      ByteBuffer frame;
      if (4 + body.length <= out.capacity()) {
        frame = out.clear().putInt(body.length).put(body).flip();
      } else {
        frame = ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).flip();
      }
      while (frame.hasRemaining()) {
        if (channel.write(frame) == 0) {
          await(SelectionKey.OP_WRITE); // the holder is not reading: its buffer is full
        }
      }
    }

    /** The next message, or null when the other side closed the channel between messages. */
    JsonNode read() throws IOException {
      if (!fill(4, true)) {
        return null;
      }
      int length = in.getInt();
      if (length < 0 || length > MAX_FRAME) {
        throw new IOException("a frame of " + length + " bytes is not a message of this channel");
      }
      byte[] body = new byte[length];
      int buffered = Math.min(length, in.remaining());
      in.get(body, 0, buffered);
      ByteBuffer rest = ByteBuffer.wrap(body, buffered, length - buffered);
      while (rest.hasRemaining()) {
        if (readSome(rest) < 0) {
          throw new EOFException("the channel closed in the middle of a message");
        }
      }
      return Json.parse(body);
    }

    private boolean fill(int bytes, boolean atStart) throws IOException {
      while (in.remaining() < bytes) {
        in.compact();
        int read;
        try {
          read = readSome(in);
        } finally {
          in.flip();
        }
        if (read < 0) {
          if (atStart && in.remaining() == 0) {
            return false;
          }
          throw new EOFException("the channel closed in the middle of a message");
        }
      }
      return true;
    }

    /** Reads at least one byte into {@code buffer} (which has room), or -1 at the end. */
    private int readSome(ByteBuffer buffer) throws IOException {
      int read = channel.read(buffer);
      if (read != 0 || selector == null) {
        return read;
      }
      while (read == 0) {
        await(SelectionKey.OP_READ);
        read = channel.read(buffer);
      }
      return read;
    }

    @Override
    public void close() throws IOException {
      try {
        channel.close();
      } finally {
        if (selector != null) {
          selector.close();
        }
      }
    }
  }

  private static String hash(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
