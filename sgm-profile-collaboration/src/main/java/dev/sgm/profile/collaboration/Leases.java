package dev.sgm.profile.collaboration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.Caller;
import dev.sgm.api.ChangeEvent;
import dev.sgm.api.MemoryRecord;
import dev.sgm.api.ReadRequest;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.Timestamps;
import dev.sgm.api.spi.Change;
import dev.sgm.api.spi.ProfileContext;
import java.time.Instant;
import java.util.concurrent.TimeUnit;

/**
 * Leases on task claims. A claim made with {@code lease_ms} carries {@code data.lease_expires_at};
 * once that passes without a {@code tasks.heartbeat}, the server gives the task back: open,
 * unassigned, logged in the change feed as {@code expired}.
 *
 * <p>Each node schedules a check for every leased task it learns of (its own claims, every task
 * change the feed shows it, and at start-up every task in the store). The give-back is a
 * conditional write: inside one transaction, the task must still be claimed by the same agent with
 * the same lapsed lease, so when several nodes (or a node and a caller) try at once, exactly one
 * writes it and the others find nothing to do.
 */
final class Leases implements AutoCloseable {
  private static final System.Logger LOG = System.getLogger(Leases.class.getName());

  /** The task's data fields of a lease. */
  static final String EXPIRES_AT = "lease_expires_at";

  static final String LEASE_MS = "lease_ms";

  /** Who the give-back is made as: the server, not an agent. */
  private static final Caller SERVER = Caller.anonymous("server");

  private final ProfileContext context;

  /** The next check due for each leased task this node knows of, by qualified id. */
  private final java.util.concurrent.ConcurrentHashMap<String, Instant> pending =
      new java.util.concurrent.ConcurrentHashMap<>();

  private final java.util.concurrent.ScheduledThreadPoolExecutor checks = checks();

  private volatile boolean closed;

  /** One thread; at shutdown the checks not yet due are dropped, and the one running ends. */
  private static java.util.concurrent.ScheduledThreadPoolExecutor checks() {
    java.util.concurrent.ScheduledThreadPoolExecutor checks =
        new java.util.concurrent.ScheduledThreadPoolExecutor(
            1, r -> Thread.ofPlatform().daemon().name("sgm-task-leases").unstarted(r));
    checks.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    checks.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
    return checks;
  }

  Leases(ProfileContext context) {
    this.context = context;
  }

  /**
   * How long after start-up the leases already in the store are read: that read visits every task
   * of the store, and a short command (a read, a brief) ends before it and so never pays for it,
   * while a server lapses what expired while it was down a moment later.
   */
  static final long START_UP_SWEEP_DELAY_MS = 2000;

  /** Starts lapsing: follows the change feed, and schedules the leases already in the store. */
  void start() {
    context.onChange(this::changed);
    checks.schedule(
        () -> {
          try {
            context.forEachLive("task", task -> watch(task.scope(), task.id(), task.json()));
          } catch (RuntimeException e) {
            if (!closed) {
              LOG.log(System.Logger.Level.WARNING, "the leases in the store could not be read", e);
            }
          }
        },
        START_UP_SWEEP_DELAY_MS,
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    // Interrupting a read of the store in progress makes the storage report a failure, so a read
    // under way is let finish before the storage closes; one not yet due is dropped.
    closed = true;
    checks.shutdown();
    try {
      if (!checks.awaitTermination(2, java.util.concurrent.TimeUnit.SECONDS)) {
        checks.shutdownNow();
      }
    } catch (InterruptedException e) {
      checks.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** Sets (or, with no lease, clears) the lease of a claim being written. */
  void grant(ObjectNode data, Long leaseMs) {
    if (leaseMs == null) {
      drop(data);
      return;
    }
    Instant expires = context.clock().instant().plusMillis(leaseMs);
    data.put(EXPIRES_AT, Timestamps.format(expires));
    data.put(LEASE_MS, leaseMs);
  }

  /** Removes a lease from a task's data. */
  static void drop(ObjectNode data) {
    data.remove(EXPIRES_AT);
    data.remove(LEASE_MS);
  }

  /** When the lease of this task (as JSON) lapses, or null when it holds none. */
  private static Instant expiry(JsonNode task) {
    JsonNode data = task.path("data");
    if (!"in_progress".equals(data.path("state").asText())
        || !data.hasNonNull("assignee")
        || !data.path(EXPIRES_AT).isTextual()) {
      return null;
    }
    return Timestamps.tryParse(data.path(EXPIRES_AT).asText());
  }

  /** True when {@code task} holds a lease that has lapsed. */
  boolean lapsed(MemoryRecord task) {
    Instant expires = expiry(task.json());
    return expires != null && !expires.isAfter(context.clock().instant());
  }

  /**
   * Schedules a check of the task (as JSON) at its lease's expiry, if it holds one and no check of
   * it is due sooner (that one reschedules itself when it finds the lease renewed).
   */
  void watch(Scope scope, String id, JsonNode task) {
    Instant expires = expiry(task);
    if (expires == null || checks.isShutdown()) {
      return;
    }
    boolean[] schedule = {false};
    pending.compute(
        scope.qualify(id),
        (key, due) -> {
          if (due != null && !due.isAfter(expires)) {
            return due;
          }
          schedule[0] = true;
          return expires;
        });
    if (!schedule[0]) {
      return;
    }
    long delay = Math.max(0, expires.toEpochMilli() - context.clock().millis());
    try {
      checks.schedule(() -> check(scope, id, expires), delay, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Shutting down.
    }
  }

  /** A task changed somewhere (maybe on another node): learn its lease. */
  private void changed(ChangeEvent event) {
    if (!"task".equals(event.type()) || "deleted".equals(event.kind())) {
      return;
    }
    // The read is work the feed's thread must not wait for.
    try {
      checks.execute(
          () -> {
            try {
              MemoryRecord task =
                  context
                      .service()
                      .read(SERVER, new ReadRequest(event.scope(), event.id(), false))
                      .record();
              watch(event.scope(), event.id(), task.json());
            } catch (SgmException e) {
              // Deleted since: nothing to lapse.
            }
          });
    } catch (java.util.concurrent.RejectedExecutionException e) {
      // Shutting down.
    }
  }

  private void check(Scope scope, String id, Instant due) {
    pending.remove(scope.qualify(id), due);
    try {
      expireIfLapsed(SERVER, scope, id);
    } catch (RuntimeException e) {
      LOG.log(
          System.Logger.Level.WARNING, "lapsing the lease of " + scope.qualify(id) + " failed", e);
    }
  }

  /**
   * Gives the task back if its lease has lapsed: a conditional write, done by whoever gets there
   * first. Returns true when this call gave it back. A lease renewed meanwhile is checked again at
   * its new expiry.
   */
  boolean expireIfLapsed(Caller caller, Scope scope, String id) {
    boolean[] renewed = {false};
    JsonNode[] current = {null};
    boolean gaveBack =
        context.atomically(
            caller,
            writer -> {
              renewed[0] = false;
              MemoryRecord task = writer.read(scope, id).orElse(null);
              if (task == null || !task.type().equals("task")) {
                return false;
              }
              Instant expires = expiry(task.json());
              if (expires == null) {
                return false;
              }
              if (expires.isAfter(context.clock().instant())) {
                renewed[0] = true;
                current[0] = task.json();
                return false;
              }
              ObjectNode back = task.json();
              ObjectNode data = back.withObjectProperty("data");
              data.put("state", "open");
              data.remove("assignee");
              drop(data);
              writer.store(back, Change.Kind.EXPIRED);
              return true;
            });
    if (renewed[0] && caller == SERVER) {
      watch(scope, id, current[0]);
    }
    return gaveBack;
  }
}
