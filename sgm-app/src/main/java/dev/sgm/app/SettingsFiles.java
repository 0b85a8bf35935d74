package dev.sgm.app;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Json;
import dev.sgm.api.SgmException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Reading and writing the agents' settings files: JSON that must parse before anything is changed,
 * written back pretty-printed as the agents write it themselves ({@code JSON.stringify(value, null,
 * 2)}), and every file replaced atomically, so that an agent starting meanwhile reads the old file
 * or the new one, never half of one.
 */
final class SettingsFiles {
  private static final DefaultPrettyPrinter PRETTY =
      new DefaultPrettyPrinter(
              Separators.createDefaultInstance()
                  .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                  .withObjectEmptySeparator("")
                  .withArrayEmptySeparator(""))
          .withObjectIndenter(new DefaultIndenter("  ", "\n"))
          .withArrayIndenter(new DefaultIndenter("  ", "\n"));

  private SettingsFiles() {}

  /** The file's text, or null when there is none. */
  static String read(Path file) {
    try {
      return Files.isRegularFile(file) ? Files.readString(file, StandardCharsets.UTF_8) : null;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /**
   * {@code text} as a JSON object (blank text: an empty one); anything else is refused naming the
   * file, before anything is written.
   */
  static ObjectNode parseObject(Path file, String text) {
    if (text == null || text.isBlank()) {
      return Json.object();
    }
    JsonNode tree;
    try {
      tree = Json.parse(text);
    } catch (SgmException e) {
      throw SgmException.invalidRequest(
          file.toString(),
          "is not valid JSON ("
              + e.getMessage().replaceFirst("^body: ", "")
              + "); nothing was changed: correct it and run this again");
    }
    if (!tree.isObject()) {
      throw SgmException.invalidRequest(
          file.toString(), "is not a JSON object; nothing was changed");
    }
    return (ObjectNode) tree;
  }

  /** {@code tree} as the agents write their settings: two spaces an indent, a final newline. */
  static String pretty(JsonNode tree) {
    try {
      return Json.mapper().writer(PRETTY).writeValueAsString(tree) + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree could not be written", e);
    }
  }

  /**
   * Replaces {@code file} with {@code text} atomically (a temporary file beside it, then a move),
   * keeping an existing file's permissions and writing through a symbolic link to its target; a new
   * file is readable by its owner alone when {@code secret}, as a token written in it is.
   */
  static void write(Path file, String text, boolean secret) {
    try {
      Path target = Files.isSymbolicLink(file) ? file.toRealPath() : file;
      Files.createDirectories(target.toAbsolutePath().getParent());
      Path temp =
          Files.createTempFile(
              target.toAbsolutePath().getParent(), "." + target.getFileName() + ".", ".tmp");
      try {
        Files.writeString(temp, text, StandardCharsets.UTF_8);
        permissions(temp, Files.exists(target) ? target : null, secret);
        Files.move(
            temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file, e);
    }
  }

  private static void permissions(Path temp, Path existing, boolean secret) throws IOException {
    try {
      Set<PosixFilePermission> wanted =
          existing != null
              ? Files.getPosixFilePermissions(existing)
              : PosixFilePermissions.fromString(secret ? "rw-------" : "rw-r--r--");
      Files.setPosixFilePermissions(temp, wanted);
    } catch (UnsupportedOperationException e) {
      // Not a POSIX file system: the temporary file keeps the system's defaults.
    }
  }

  /** Deletes {@code file} if it is there. */
  static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + file, e);
    }
  }

  /** Deletes {@code directory} if it is there and empty; says whether it did. */
  static boolean deleteIfEmpty(Path directory) {
    try (var entries = Files.list(directory)) {
      if (entries.findAny().isPresent()) {
        return false;
      }
      Files.delete(directory);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
