package dev.sgm.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A temporary directory for a benchmark's data, deleted with everything in it on close: a loaded
 * store runs to gigabytes, which must not pile up in the temporary directory run after run.
 */
final class ScratchDirectory implements AutoCloseable {
  private final Path path;

  private ScratchDirectory(Path path) {
    this.path = path;
  }

  static ScratchDirectory create(String prefix) throws IOException {
    return new ScratchDirectory(Files.createTempDirectory(prefix));
  }

  Path path() {
    return path;
  }

  @Override
  public void close() {
    try (Stream<Path> paths = Files.walk(path)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + path, e);
    }
  }
}
