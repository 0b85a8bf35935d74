package dev.sgm.transport.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Json;
import java.io.EOFException;
import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
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
 */
final class LocalChannel {
  /** The holder's lock: whoever holds it on this file holds the directory. */
  static final String LOCK_FILE = "sgm.holder.lock";

  /** The owner-only directory of the socket, in the data directory. */
  static final String CHANNEL_DIRECTORY = "sgm.channel";

  /** The socket's name in its directory. */
  static final String SOCKET_FILE = "sgm.sock";

  /** Operations of the channel itself, not SGM operations (no SGM name starts with '#'). */
  static final String OPERATIONS = "#operations";

  static final String CONTENT = "#content";
  static final String DESCRIBE = "#describe";

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

  static Framed connect(Path socket) throws IOException {
    return new Framed(SocketChannel.open(UnixDomainSocketAddress.of(socket)));
  }

  /**
   * One end of a connection, with buffers kept for its life: a message usually takes one read call
   * and one write call, which is most of what a fast call through the channel costs.
   */
  static final class Framed implements java.io.Closeable {
    private static final int BUFFER = 64 * 1024;
    private final SocketChannel channel;
    private final ByteBuffer in = ByteBuffer.allocateDirect(BUFFER).flip();
    private final ByteBuffer out = ByteBuffer.allocateDirect(BUFFER);

    Framed(SocketChannel channel) {
      this.channel = channel;
    }

    boolean isOpen() {
      return channel.isOpen();
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
        channel.write(frame);
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
        if (channel.read(rest) < 0) {
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
          read = channel.read(in);
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

    @Override
    public void close() throws IOException {
      channel.close();
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
