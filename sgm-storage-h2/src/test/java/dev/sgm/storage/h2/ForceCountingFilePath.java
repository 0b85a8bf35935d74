package dev.sgm.storage.h2;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

/**
 * An H2 file system ({@code forcecount:}) over the disk that counts {@link FileChannel#force} calls
 * on the files it opens: what reaches the disk, as the store itself does it.
 */
public final class ForceCountingFilePath extends FilePathWrapper {
  static final String SCHEME = "forcecount";
  private static final AtomicLong FORCES = new AtomicLong();

  static {
    FilePath.register(new ForceCountingFilePath());
  }

  /** Registers the file system once; returns the URL prefix that selects it. */
  static String prefix() {
    return SCHEME + ":";
  }

  static long forces() {
    return FORCES.get();
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public FileChannel open(String mode) throws IOException {
    return new Counting(getBase().open(mode));
  }

  private static final class Counting extends DelegatingFileChannel {
    Counting(FileChannel channel) {
      super(channel);
    }

    @Override
    public void force(boolean metaData) throws IOException {
      channel.force(metaData);
      FORCES.incrementAndGet();
    }
  }
}
