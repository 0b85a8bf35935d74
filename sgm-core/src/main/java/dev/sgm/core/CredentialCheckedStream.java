package dev.sgm.core;

import dev.sgm.api.ChangeStream;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A watch opened with a token, which ends once that token no longer authenticates (revoked or
 * expired): its token is checked every second, and then the stream's next poll fails with {@code
 * unauthenticated}, which every transport sends as the stream's end. A consumer waiting on the
 * stream's ready signal is woken for it, so an idle stream ends too.
 */
final class CredentialCheckedStream implements ChangeStream {
  private static final long CHECK_MILLIS = 1000;

  private static final ScheduledExecutorService CHECKS =
      Executors.newSingleThreadScheduledExecutor(
          task -> Thread.ofPlatform().daemon().name("sgm-watch-credentials").unstarted(task));

  private final ChangeStream stream;
  private final BooleanSupplier valid;
  private final ScheduledFuture<?> check;
  private volatile boolean revoked;
  private volatile Runnable listener;

  CredentialCheckedStream(ChangeStream stream, BooleanSupplier valid) {
    this.stream = stream;
    this.valid = valid;
    this.check =
        CHECKS.scheduleWithFixedDelay(
            this::check, CHECK_MILLIS, CHECK_MILLIS, TimeUnit.MILLISECONDS);
  }

  private void check() {
    if (revoked) {
      return;
    }
    boolean stillValid;
    try {
      stillValid = valid.getAsBoolean();
    } catch (RuntimeException e) {
      return; // the token store is out of reach: judged at the next check
    }
    if (!stillValid) {
      revoked = true;
      check.cancel(false);
      Runnable waiting = listener;
      if (waiting != null) {
        waiting.run();
      }
    }
  }

  private void requireValid() {
    if (revoked) {
      throw new SgmException(
          ErrorCode.UNAUTHENTICATED,
          "the token this watch was opened with is no longer valid (revoked or expired)");
    }
  }

  @Override
  public Batch poll(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      requireValid();
      long left = deadline - System.nanoTime();
      Duration slice =
          Duration.ofNanos(
              Math.max(0, Math.min(left, TimeUnit.MILLISECONDS.toNanos(CHECK_MILLIS))));
      Batch batch = stream.poll(slice);
      if (!batch.events().isEmpty() || batch.fellBehind() || deadline - System.nanoTime() <= 0) {
        requireValid();
        return batch;
      }
    }
  }

  @Override
  public boolean onReady(Runnable listener) {
    this.listener = listener;
    return stream.onReady(listener);
  }

  @Override
  public Batch pollReady() {
    requireValid();
    return stream.pollReady();
  }

  @Override
  public String cursor() {
    return stream.cursor();
  }

  @Override
  public void close() {
    check.cancel(false);
    stream.close();
  }
}
