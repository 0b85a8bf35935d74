package dev.sgm.storage.h2;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import org.h2.store.fs.FileBase;

/**
 * A file channel of an H2 test file system that passes every call on to the disk's channel; the
 * test file systems override the calls they watch.
 */
class DelegatingFileChannel extends FileBase {
  protected final FileChannel channel;

  DelegatingFileChannel(FileChannel channel) {
    this.channel = channel;
  }

  @Override
  public void force(boolean metaData) throws IOException {
    channel.force(metaData);
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
