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

  /** The socket's name in the data directory. */
  static final String SOCKET_FILE = "sgm.sock";

  /** Operations of the channel itself, not SGM operations (no SGM name starts with '#'). */
  static final String OPERATIONS = "#operations";

  static final String CONTENT = "#content";
  static final String DESCRIBE = "#describe";

  /** Frames larger than this are refused: more than a full batch of the largest records. */
  private static final int MAX_FRAME = Integer.MAX_VALUE - 8;

  /** The longest socket path the kernel takes (sun_path is 108 bytes with its terminating NUL). */
  private static final int MAX_SOCKET_PATH = 107;

  private LocalChannel() {}

  /**
   * Where the socket of {@code dataDir} is: in the directory itself, or, when that path is too long
   * for a socket, in a private per-user directory under the temporary directory, named by a hash of
   * the data directory so that every process finds the same one.
   */
  static Path socketPath(Path dataDir) throws IOException {
    Path inside = dataDir.resolve(SOCKET_FILE);
    if (inside.toString().getBytes(StandardCharsets.UTF_8).length <= MAX_SOCKET_PATH) {
      return inside;
    }
    String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9_.-]", "_");
    Path base =
        Path.of(
            System.getenv().getOrDefault("XDG_RUNTIME_DIR", System.getProperty("java.io.tmpdir")));
    Path dir = base.resolve("sgm-" + user);
    privateDirectory(dir);
    return dir.resolve(hash(dataDir.toString()).substring(0, 32) + ".sock");
  }

  /**
   * Makes {@code dir} (created if missing) reachable by its owner only, and refuses one that
   * another user owns: a socket there could be another user's.
   */
  static void privateDirectory(Path dir) throws IOException {
    Files.createDirectories(dir);
    if (!Files.getFileStore(dir).supportsFileAttributeView("posix")) {
      return;
    }
    String owner = Files.getOwner(dir, LinkOption.NOFOLLOW_LINKS).getName();
    if (!owner.equals(System.getProperty("user.name"))) {
      throw new IOException(dir + " belongs to " + owner + ", not to this user");
    }
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
  }

  /** Makes {@code file} readable and writable by its owner only. */
  static void ownerOnly(Path file) throws IOException {
    if (Files.getFileStore(file.getParent()).supportsFileAttributeView("posix")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }
  }

  static SocketChannel connect(Path socket) throws IOException {
    return SocketChannel.open(UnixDomainSocketAddress.of(socket));
  }

  static void write(SocketChannel channel, JsonNode message) throws IOException {
    byte[] body = Json.writeBytes(message);
    ByteBuffer frame = ByteBuffer.allocate(4 + body.length);
    frame.putInt(body.length).put(body).flip();
    while (frame.hasRemaining()) {
      channel.write(frame);
    }
  }

  /** The next message, or null when the other side closed the channel between messages. */
  static JsonNode read(SocketChannel channel) throws IOException {
    ByteBuffer header = ByteBuffer.allocate(4);
    if (!fill(channel, header, true)) {
      return null;
    }
    int length = header.flip().getInt();
    if (length < 0 || length > MAX_FRAME) {
      throw new IOException("a frame of " + length + " bytes is not a message of this channel");
    }
    ByteBuffer body = ByteBuffer.allocate(length);
    fill(channel, body, false);
    return Json.parse(body.array());
  }

  private static boolean fill(SocketChannel channel, ByteBuffer buffer, boolean atStart)
      throws IOException {
    while (buffer.hasRemaining()) {
      if (channel.read(buffer) < 0) {
        if (atStart && buffer.position() == 0) {
          return false;
        }
        throw new EOFException("the channel closed in the middle of a message");
      }
    }
    return true;
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
