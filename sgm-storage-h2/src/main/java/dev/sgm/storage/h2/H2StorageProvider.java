package dev.sgm.storage.h2;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import dev.sgm.api.spi.StorageProvider;
import dev.sgm.storage.sql.SqlStorage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.UUID;

/**
 * Provides the embedded H2 store ({@code storage=h2}, the default): a database file under {@code
 * data.dir} with a page cache of {@code storage.h2.cache-mb} (64 MiB), or, when the run keeps
 * nothing ({@link StorageContext#inMemory()}), a private in-memory database. {@code
 * storage.h2.sync} chooses when a write is acknowledged ({@link #SYNC}).
 */
public final class H2StorageProvider implements StorageProvider {
  /** The page cache of the file store, in MiB. */
  public static final String CACHE_MB = "storage.h2.cache-mb";

  /**
   * When an acknowledged write is safe: {@code os} (the default) once the operating system has it,
   * which survives the process being killed but not the machine losing power; {@code fsync} once it
   * is on the disk, which survives both.
   */
  public static final String SYNC = "storage.h2.sync";

  @Override
  public String name() {
    return "h2";
  }

  /** H2 locks its file: one process opens it, and others reach it through that one. */
  @Override
  public boolean oneProcessAtATime() {
    return true;
  }

  @Override
  public Set<String> configKeys() {
    return Set.of(CACHE_MB, SYNC);
  }

  @Override
  public Storage create(Config config, StorageContext context) {
    return create(config, context, "file:");
  }

  /**
   * The store, with its file opened through H2's file system {@code fileSystem} ({@code file:} for
   * the disk; tests pass one that watches the file).
   */
  Storage create(Config config, StorageContext context, String fileSystem) {
    if (context.inMemory()) {
      String name = "sgm-" + UUID.randomUUID();
      return new SqlStorage(
          new H2Dialect(
              "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1;" + H2Dialect.SESSION_SETTINGS,
              "h2 in memory",
              false));
    }
    Path dir = context.dataDirectory().toAbsolutePath();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new SgmException(
          ErrorCode.UNAVAILABLE,
          "the data directory " + dir + " cannot be created: " + e.getMessage());
    }
    String sync = config.get(SYNC, "os");
    if (!sync.equals("os") && !sync.equals("fsync")) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "configuration " + SYNC + ": must be os or fsync, not '" + sync + "'");
    }
    boolean fsync = sync.equals("fsync");
    int cacheMegabytes = config.getInt(CACHE_MB, 64);
    if (cacheMegabytes < 1) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST, "configuration " + CACHE_MB + ": must be at least 1");
    }
    // WRITE_DELAY=0: a commit is written to the file before it returns, so an acknowledged store
    // survives a crash of the process; with fsync it is also forced to the disk before the answer.
    // The page cache keeps a large store's indexes in memory.
    String url =
        "jdbc:h2:"
            + fileSystem
            + dir.resolve("sgm")
            + ";WRITE_DELAY=0;DB_CLOSE_ON_EXIT=FALSE;CACHE_SIZE="
            + cacheMegabytes * 1024
            + ";"
            + H2Dialect.SESSION_SETTINGS;
    return new SqlStorage(
        new H2Dialect(url, "h2 " + dir.resolve("sgm.mv.db") + (fsync ? " (fsync)" : ""), fsync));
  }

  /** The H2 database under {@code storage}, a store this provider created: for tests. */
  static H2Dialect dialectOf(Storage storage) {
    return (H2Dialect) ((SqlStorage) storage).dialect();
  }
}
