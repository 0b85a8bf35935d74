package dev.sgm.core;

import dev.sgm.api.SgmException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Failed authentications counted per client address. Once an address has failed {@code limit} times
 * within one window, every attempt from it is refused without looking at its token until the window
 * ends, so guessing faster gains nothing and a flood of bad tokens writes one log line, not one per
 * request.
 */
final class FailedAttempts {
  private static final System.Logger LOG = System.getLogger(FailedAttempts.class.getName());

  /** Past this many addresses, windows that have ended are dropped so the map stays bounded. */
  private static final int SWEEP_AT = 10_000;

  /** Where requests without a known address are counted together. */
  private static final String UNKNOWN = "(unknown address)";

  private final int limit;
  private final long windowNanos;
  private final LongSupplier nanoTime;
  private final Map<String, Window> byAddress = new ConcurrentHashMap<>();

  /** One address's failures since {@code start}. */
  private static final class Window {
    final long start;
    int failures;

    Window(long start) {
      this.start = start;
    }
  }

  FailedAttempts(int limit, Duration window, LongSupplier nanoTime) {
    this.limit = limit;
    this.windowNanos = window.toNanos();
    this.nanoTime = nanoTime;
  }

  /** Refuses {@code address} with a retry delay while it is over the limit. */
  void check(String address) {
    Window window = byAddress.get(key(address));
    if (window == null) {
      return;
    }
    long now = nanoTime.getAsLong();
    long left;
    synchronized (window) {
      if (window.failures < limit) {
        return;
      }
      left = window.start + windowNanos - now;
    }
    if (left <= 0) {
      byAddress.remove(key(address), window);
      return;
    }
    Duration retryAfter = Duration.ofNanos(left);
    throw SgmException.throttled(
        "authorization",
        "too many failed authentications from this address; try again in "
            + Math.max(1, (retryAfter.toMillis() + 999) / 1000)
            + " s",
        retryAfter);
  }

  /** Counts a failed attempt of {@code address}. */
  void failed(String address, String origin) {
    String key = key(address);
    long now = nanoTime.getAsLong();
    if (byAddress.size() >= SWEEP_AT) {
      byAddress.values().removeIf(w -> now - w.start >= windowNanos);
    }
    Window window =
        byAddress.compute(
            key, (k, old) -> old == null || now - old.start >= windowNanos ? new Window(now) : old);
    int failures;
    synchronized (window) {
      failures = ++window.failures;
    }
    if (failures < limit) {
      LOG.log(System.Logger.Level.WARNING, "a request over {0} presented an invalid token", origin);
    } else if (failures == limit) {
      LOG.log(
          System.Logger.Level.WARNING,
          "{0} failed authentication {1} times over {2}; refusing it until its window of {3} s"
              + " ends",
          key,
          limit,
          origin,
          windowNanos / 1_000_000_000L);
    }
  }

  private static String key(String address) {
    return address == null || address.isBlank() ? UNKNOWN : address;
  }
}
