package dev.sgm.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A directory for a benchmark's data, by default temporary and deleted with everything in it on
 * close: a loaded store runs to gigabytes, which must not pile up in the temporary directory run
 * after run. A kept one stays, so that a load that takes hours is paid once and measured many
 * times.
 */
final class ScratchDirectory implements AutoCloseable {
  private final Path path;
  private final boolean kept;

  private ScratchDirectory(Path path, boolean kept) {
    this.path = path;
    this.kept = kept;
  }

  static ScratchDirectory create(String prefix) throws IOException {
    return new ScratchDirectory(Files.createTempDirectory(prefix), false);
  }

  /** {@code path}, created if missing, and left in place on close. */
  static ScratchDirectory kept(Path path) throws IOException {
    return new ScratchDirectory(Files.createDirectories(path), true);
  }

  Path path() {
    return path;
  }

  @Override
  public void close() {
    if (kept) {
      return;
    }
    try (Stream<Path> paths = Files.walk(path)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete " + path, e);
    }
  }
}
