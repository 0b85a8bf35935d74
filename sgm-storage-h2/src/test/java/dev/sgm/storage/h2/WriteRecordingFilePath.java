package dev.sgm.storage.h2;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;
import org.h2.store.fs.FilePath;
import org.h2.store.fs.FilePathWrapper;

/**
 * An H2 file system ({@code writerecord:}) over the disk that keeps, in order, every write and
 * truncation made to the store files ({@code .mv.db}) it opens: replaying the first {@code k} of
 * them gives the file as a process killed after its {@code k}-th write left it (the OS keeps every
 * write that returned).
 */
public final class WriteRecordingFilePath extends FilePathWrapper {
  static final String SCHEME = "writerecord";

  /** One write ({@code bytes} at {@code position}), or a truncation to {@code length}. */
  record Write(long position, byte[] bytes, long length) {}

  private static final List<Write> WRITES = new ArrayList<>();

  static {
    FilePath.register(new WriteRecordingFilePath());
  }

  /** Registers the file system once; returns the URL prefix that selects it. */
  static String prefix() {
    return SCHEME + ":";
  }

  /** How many writes were made so far. */
  static int count() {
    synchronized (WRITES) {
      return WRITES.size();
    }
  }

  /** The writes made so far, from the first, and forgets them. */
  static List<Write> take() {
    synchronized (WRITES) {
      List<Write> taken = new ArrayList<>(WRITES);
      WRITES.clear();
      return taken;
    }
  }

  @Override
  public String getScheme() {
    return SCHEME;
  }

  @Override
  public FileChannel open(String mode) throws IOException {
    FileChannel channel = getBase().open(mode);
    return getBase().toString().endsWith(".mv.db") ? new Recording(channel) : channel;
  }

  private static final class Recording extends DelegatingFileChannel {
    Recording(FileChannel channel) {
      super(channel);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      long position = channel.position();
      int written = write(src, position);
      channel.position(position + written);
      return written;
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      // Written and recorded in one turn, so that the record's order is the file's.
      synchronized (WRITES) {
        ByteBuffer copy = src.duplicate();
        int written = channel.write(src, position);
        byte[] bytes = new byte[written];
        copy.get(bytes);
        WRITES.add(new Write(position, bytes, -1));
        return written;
      }
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      synchronized (WRITES) {
        channel.truncate(size);
        WRITES.add(new Write(0, null, size));
      }
      return this;
    }
  }
}
