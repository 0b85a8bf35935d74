package dev.sgm.core;

import dev.sgm.api.Caller;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.ChangesRequest;
import dev.sgm.api.ChangesResult;
import dev.sgm.api.ErrorCode;
import dev.sgm.api.FieldError;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ChangeBatch;
import dev.sgm.api.spi.Storage;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The {@code changes} operation over the storage's commit-ordered change log: events of the
 * requested scopes and types after a cursor, the cursors themselves (signed, so a tampered one is
 * refused rather than read at some other position), and the retention window that prunes the log.
 */
final class ChangeFeed implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(ChangeFeed.class.getName());

  /** Changes read from storage per round while looking for events that match. */
  private static final int BATCH = 1000;

  /**
   * The most changes one call looks through: a feed of a quiet scope in a busy store answers with
   * fewer events (even none) and a {@code next} further on, rather than scanning without end.
   */
  private static final int MAX_SCANNED = 20_000;

  private static final byte FORMAT = 1;
  private static final int MAC_BYTES = 15;

  private final Storage storage;
  private final Clock clock;
  private final Duration retention;
  private final SecretKeySpec key;
  private ScheduledExecutorService pruner;

  ChangeFeed(Storage storage, Clock clock, Duration retention) {
    this.storage = storage;
    this.clock = clock;
    this.retention = retention;
    // Keyed by the store's identity, which never leaves the server: every node of one store
    // signs alike, and a cursor of another store is refused.
    this.key =
        new SecretKeySpec(
            ("sgm-changes:" + storage.identity()).getBytes(StandardCharsets.UTF_8), "HmacSHA256");
  }

  /** How long the change log keeps an entry. */
  Duration retention() {
    return retention;
  }

  /** Starts pruning the log of entries older than the retention window. */
  synchronized void start() {
    if (pruner != null) {
      return;
    }
    long every =
        Math.max(10, Math.min(retention.toMillis() / 10, Duration.ofMinutes(10).toMillis()));
    pruner =
        Executors.newSingleThreadScheduledExecutor(
            r -> Thread.ofPlatform().daemon().name("sgm-change-log-pruner").unstarted(r));
    pruner.scheduleWithFixedDelay(this::pruneQuietly, 0, every, TimeUnit.MILLISECONDS);
  }

  private void pruneQuietly() {
    try {
      prune();
    } catch (RuntimeException e) {
      LOG.log(System.Logger.Level.WARNING, "pruning the change log failed; will retry", e);
    }
  }

  /** Drops the entries older than the retention window now; returns how many. */
  long prune() {
    Instant before = clock.instant().minus(retention);
    return storage.pruneChangesBefore(ChronoUnit.MICROS.between(Instant.EPOCH, before));
  }

  @Override
  public synchronized void close() {
    if (pruner != null) {
      pruner.shutdownNow();
      pruner = null;
    }
  }

  /** The cursor of the present: following from it sees every write that commits later. */
  String present() {
    return encode(storage.committedSequence());
  }

  /**
   * {@code changes}: the events after the request's cursor that it covers and the caller may see.
   */
  ChangesResult changes(Caller caller, ChangesRequest request) {
    if (request.since() == null) {
      return new ChangesResult(List.of(), present());
    }
    long after = decode(request.since(), "since");
    checkRetained(after, "since");
    // Waits for transactions still committing, so a caller sees every write that committed before
    // it asked (its own included), not only those below the first one still in flight.
    storage.committedSequence();
    List<ChangeEvent> events = new ArrayList<>();
    long position = after;
    int scanned = 0;
    while (scanned < MAX_SCANNED) {
      ChangeBatch batch = storage.changesAfter(position, BATCH);
      for (Change change : batch.changes()) {
        position = change.seq();
        if (follows(caller, request, change)) {
          events.add(event(change));
          if (events.size() == request.limit()) {
            break;
          }
        }
      }
      scanned += batch.changes().size();
      if (events.size() == request.limit()) {
        break;
      }
      position = Math.max(position, batch.through());
      if (batch.changes().size() < BATCH) {
        break;
      }
    }
    // Pruning may have run while this read: then what was read may have gaps.
    checkRetained(after, "since");
    return new ChangesResult(events, encode(position));
  }

  /**
   * Whether {@code caller} follows {@code change} under {@code request}: its scope and type are
   * covered, and the caller may read its scope. Grants are not enforced yet (authorization is not
   * offered); this is the one place they will be checked for the feed and every watch stream.
   */
  static boolean follows(Caller caller, ChangesRequest request, Change change) {
    String type = change.type() != null ? change.type() : typeNow(change);
    return request.covers(change.scope(), type) && mayRead(caller, change.scope());
  }

  private static String typeNow(Change change) {
    return change.current() == null ? null : change.current().type();
  }

  /**
   * The caller may read records of {@code scope}: a wider scope mode reaches scopes the caller's
   * grants may not cover, whose events are left out as if they had not happened.
   */
  static boolean mayRead(Caller caller, Scope scope) {
    return caller.grants().canRead(scope);
  }

  /** The event a watcher sees for {@code change}. */
  ChangeEvent event(Change change) {
    return new ChangeEvent(
        encode(change.seq()),
        change.kind().wireName(),
        change.scope(),
        change.id(),
        change.type() != null ? change.type() : typeNow(change),
        change.version(),
        change.writer(),
        change.atMicros() == 0 ? null : Instant.EPOCH.plus(change.atMicros(), ChronoUnit.MICROS));
  }

  /** Fails with {@code cursor_expired} when changes after {@code after} may have been pruned. */
  void checkRetained(long after, String field) {
    long retained = storage.changesRetainedAfter();
    if (after < retained) {
      String reason =
          "is older than the change log keeps (entries are kept for "
              + describe(retention)
              + "); read the current state again (retrieve), then follow from the present"
              + " by calling changes without since";
      throw new SgmException(
          ErrorCode.CURSOR_EXPIRED, field + ": " + reason, List.of(new FieldError(field, reason)));
    }
  }

  private static String describe(Duration duration) {
    if (duration.toDaysPart() > 0 && duration.toHoursPart() == 0 && duration.toMinutesPart() == 0) {
      return duration.toDays() + " days";
    }
    return duration.toString().substring(2).toLowerCase(java.util.Locale.ROOT);
  }

  // ---- cursors

  /** The opaque cursor of a position in the log: format, position and a truncated HMAC. */
  String encode(long seq) {
    ByteBuffer buffer = ByteBuffer.allocate(1 + Long.BYTES + MAC_BYTES);
    buffer.put(FORMAT).putLong(seq).put(mac(FORMAT, seq));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(buffer.array());
  }

  /**
   * The position of a cursor this store issued, or {@code invalid_request} naming {@code field}.
   */
  long decode(String cursor, String field) {
    byte[] bytes;
    try {
      bytes = Base64.getUrlDecoder().decode(cursor);
    } catch (IllegalArgumentException e) {
      throw notOurs(field);
    }
    if (bytes.length != 1 + Long.BYTES + MAC_BYTES || bytes[0] != FORMAT) {
      throw notOurs(field);
    }
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    buffer.get();
    long seq = buffer.getLong();
    byte[] mac = Arrays.copyOfRange(bytes, 1 + Long.BYTES, bytes.length);
    if (seq < 0 || !MessageDigest.isEqual(mac, mac(FORMAT, seq))) {
      throw notOurs(field);
    }
    return seq;
  }

  private byte[] mac(byte format, long seq) {
    try {
      Mac hmac = Mac.getInstance("HmacSHA256");
      hmac.init(key);
      hmac.update(format);
      hmac.update(ByteBuffer.allocate(Long.BYTES).putLong(seq).array());
      return Arrays.copyOf(hmac.doFinal(), MAC_BYTES);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  private static SgmException notOurs(String field) {
    return SgmException.invalidRequest(
        field, "is not a change cursor this store issued (was it altered, or from another store?)");
  }

  /** Reads a duration setting: ISO-8601 ({@code P7D}, {@code PT1H}) or {@code 7d}, {@code 90s}. */
  static Duration parseDuration(String key, String text) {
    String value = text.trim().toLowerCase(java.util.Locale.ROOT);
    try {
      if (value.startsWith("p")) {
        return positive(key, text, Duration.parse(value.toUpperCase(java.util.Locale.ROOT)));
      }
      String[][] units = {
        {"ms", "MILLIS"}, {"s", "SECONDS"}, {"m", "MINUTES"}, {"h", "HOURS"}, {"d", "DAYS"}
      };
      for (String[] unit : units) {
        if (value.endsWith(unit[0])) {
          long amount = Long.parseLong(value.substring(0, value.length() - unit[0].length()));
          return positive(key, text, Duration.of(amount, ChronoUnit.valueOf(unit[1])));
        }
      }
    } catch (RuntimeException e) {
      // Reported below with the forms accepted.
    }
    throw new SgmException(
        ErrorCode.INVALID_REQUEST,
        "configuration "
            + key
            + ": '"
            + text
            + "' is not a duration such as 7d, 12h, 30m, 90s, 500ms or P7D");
  }

  private static Duration positive(String key, String text, Duration duration) {
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(key + " must be positive: " + text);
    }
    return duration;
  }
}
