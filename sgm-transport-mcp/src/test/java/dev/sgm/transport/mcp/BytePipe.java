package dev.sgm.transport.mcp;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An in-memory pipe between threads for stdio tests. Unlike {@link java.io.PipedInputStream}, a
 * read waits for bytes for as long as the writing end is open, whichever thread wrote last: the
 * JDK's pipe fails a read with "Write end dead" once the thread that last wrote has ended, and the
 * server writes from short-lived virtual threads.
 */
final class BytePipe {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition readable = lock.newCondition();
  private byte[] buffer = new byte[8192];
  private int start;
  private int end;
  private boolean closed;

  private final OutputStream out =
      new OutputStream() {
        @Override
        public void write(int b) throws IOException {
          write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
          lock.lock();
          try {
            if (closed) {
              throw new IOException("pipe closed");
            }
            if (end + length > buffer.length) {
              int held = end - start;
              byte[] grown = new byte[Math.max(buffer.length, 2 * (held + length))];
              System.arraycopy(buffer, start, grown, 0, held);
              buffer = grown;
              start = 0;
              end = held;
            }
            System.arraycopy(bytes, offset, buffer, end, length);
            end += length;
            readable.signalAll();
          } finally {
            lock.unlock();
          }
        }

        @Override
        public void close() {
          lock.lock();
          try {
            closed = true;
            readable.signalAll();
          } finally {
            lock.unlock();
          }
        }
      };

  private final InputStream in =
      new InputStream() {
        @Override
        public int read() throws IOException {
          byte[] one = new byte[1];
          return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
          if (length == 0) {
            return 0;
          }
          lock.lock();
          try {
            while (start == end && !closed) {
              readable.await();
            }
            if (start == end) {
              return -1;
            }
            int n = Math.min(length, end - start);
            System.arraycopy(buffer, start, bytes, offset, n);
            start += n;
            return n;
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while reading the pipe");
          } finally {
            lock.unlock();
          }
        }

        @Override
        public int available() {
          lock.lock();
          try {
            return end - start;
          } finally {
            lock.unlock();
          }
        }
      };

  /** The end the writer writes to; closing it ends the reader's stream once drained. */
  OutputStream out() {
    return out;
  }

  /** The end the reader reads from. */
  InputStream in() {
    return in;
  }
}
