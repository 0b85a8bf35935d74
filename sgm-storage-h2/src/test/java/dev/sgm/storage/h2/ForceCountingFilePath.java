package dev.sgm.storage.h2;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.util.concurrent.atomic.AtomicLong;
import org.h2.store.fs.FileBase;
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

  private static final class Counting extends FileBase {
    private final FileChannel channel;

    Counting(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      channel.force(metaData);
      FORCES.incrementAndGet();
    }

    @Override
    protected void implCloseChannel() throws IOException {
      channel.close();
    }

    @Override
    public long position() throws IOException {
      return channel.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      channel.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return channel.size();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return channel.read(dst);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return channel.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      return channel.write(src);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      return channel.write(src, position);
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      channel.truncate(size);
      return this;
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return channel.tryLock(position, size, shared);
    }
  }
}
