package dev.sgm.app;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.StoreInUseException;
import dev.sgm.core.SgmRuntime;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * This process runs the store; {@code holder}, {@code directory}, {@code lockFile} and {@code lock}
 * are null when it is not shared. Also the race that decides who holds a directory: at opening, and
 * again whenever a client's holder goes away.
 */
record DirectoryHolding(
    SgmRuntime runtime, DirectoryHolder holder, Path directory, FileChannel lockFile, FileLock lock)
    implements SharedDirectory.State {
  /** How long to wait for a directory to have a holder that answers before giving up. */
  private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(10);

  /** How long a new holder waits for the store's own file lock, released with the old holder. */
  private static final long STORE_OPEN_NANOS = TimeUnit.MILLISECONDS.toNanos(1500);

  /**
   * The directories this JVM holds. A second holder in one JVM must not even open the lock file:
   * closing any descriptor of a file drops every POSIX lock the process has on it.
   */
  private static final Set<Path> HELD_HERE = ConcurrentHashMap.newKeySet();

  /** A store this process alone uses: in memory, or a storage that is not shared. */
  static DirectoryHolding unshared(SgmRuntime runtime) {
    return new DirectoryHolding(runtime, null, null, null, null);
  }

  /**
   * Whether another process holds {@code directory} now (has its lock): then it is shared, whatever
   * storage it keeps, and reaching it needs no plugin. Read without disturbing a lock this process
   * has.
   */
  static boolean heldElsewhere(Path directory) {
    Path real;
    try {
      real = directory.toRealPath();
    } catch (IOException e) {
      return false;
    }
    Path lock = real.resolve(LocalChannel.LOCK_FILE);
    synchronized (HELD_HERE) {
      if (HELD_HERE.contains(real) || !Files.exists(lock)) {
        return false;
      }
      try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE)) {
        FileLock held = channel.tryLock();
        if (held == null) {
          return true;
        }
        held.release();
        return false;
      } catch (OverlappingFileLockException e) {
        return true;
      } catch (IOException e) {
        return false;
      }
    }
  }

  /** Holds the directory, or connects to its holder, waiting for one to answer. */
  static SharedDirectory.State holdOrConnect(
      Config config, Path directory, Path socket, long timeoutNanos) {
    long deadline = System.nanoTime() + SETTLE_NANOS;
    long pause = 2;
    while (true) {
      DirectoryHolding held = tryHold(config, directory, socket);
      if (held != null) {
        return held;
      }
      try {
        return HolderClient.connect(directory, socket, timeoutNanos);
      } catch (IOException e) {
        // The holder is starting, or has just died (or is stopped): try again.
      }
      if (System.nanoTime() > deadline) {
        throw new SgmException(
            ErrorCode.UNAVAILABLE,
            "the data directory "
                + directory
                + " is in use by another process, which does not answer on "
                + socket);
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while opening " + directory);
      }
      pause = Math.min(pause * 2, 50);
    }
  }

  /** Takes the lock and opens and serves the store; null when another process holds it. */
  private static DirectoryHolding tryHold(Config config, Path directory, Path socket) {
    synchronized (HELD_HERE) {
      if (HELD_HERE.contains(directory)) {
        return null;
      }
      FileChannel lockFile = null;
      FileLock lock = null;
      try {
        Path path = directory.resolve(LocalChannel.LOCK_FILE);
        lockFile = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        LocalChannel.ownerOnly(path);
        try {
          lock = lockFile.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null;
        }
        if (lock == null) {
          lockFile.close();
          return null;
        }
        HELD_HERE.add(directory);
        SgmRuntime runtime = openStore(config, directory);
        try {
          return new DirectoryHolding(
              runtime, DirectoryHolder.start(runtime, socket), directory, lockFile, lock);
        } catch (IOException | RuntimeException e) {
          runtime.close();
          throw e;
        }
      } catch (IOException | RuntimeException e) {
        if (lock != null) {
          HELD_HERE.remove(directory);
        }
        quietly(lockFile);
        if (e instanceof SgmException sgm) {
          throw sgm;
        }
        throw new SgmException(
            ErrorCode.UNAVAILABLE,
            "the data directory " + directory + " cannot be served: " + e.getMessage());
      }
    }
  }

  /**
   * Opens the store, waiting a moment while the previous holder's file lock on it is still being
   * released by the OS (the two locks are dropped one after the other when a process dies).
   */
  private static SgmRuntime openStore(Config config, Path directory) {
    long deadline = System.nanoTime() + STORE_OPEN_NANOS;
    while (true) {
      try {
        return Sgm.openRuntime(config);
      } catch (StoreInUseException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SgmException(ErrorCode.UNAVAILABLE, "interrupted while opening " + directory);
      }
    }
  }

  /** Stops serving and closes the store; the lock goes last, so no one opens it before. */
  void close() {
    if (holder != null) {
      holder.close();
    } else {
      runtime.close();
    }
    if (lock != null) {
      try {
        lock.release();
      } catch (IOException e) {
        // Released with the descriptor below.
      }
      quietly(lockFile);
      HELD_HERE.remove(directory);
    }
  }

  private static void quietly(FileChannel lockFile) {
    if (lockFile == null) {
      return;
    }
    try {
      lockFile.close();
    } catch (IOException e) {
      // Closing after a failure: nothing more to do.
    }
  }
}
