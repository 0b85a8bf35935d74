package dev.sgm.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What a database's busy sessions are doing while a load runs: {@code pg_stat_activity} sampled
 * every 20 ms, each busy session counted under its wait event (or as running on the CPU), so that a
 * run can say whether its stores queue inside the database (on a lock, or on the WAL flush).
 */
final class PgWaits implements AutoCloseable {
  private final Connection connection;
  private final Thread sampler;
  private final Map<String, Integer> counts = new HashMap<>();
  private volatile boolean stopped;
  private int samples;

  /** Starts sampling the sessions of the database at {@code url}. */
  PgWaits(String url, String user, String password) throws SQLException {
    this.connection = DriverManager.getConnection(url, user, password);
    this.sampler = Thread.ofPlatform().daemon().name("pg-waits").start(this::sample);
  }

  private void sample() {
    String sql =
        "SELECT coalesce(wait_event_type || ':' || wait_event, 'running') FROM pg_stat_activity"
            + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            + " AND state = 'active'";
    try (PreparedStatement ps = connection.prepareStatement(sql)) {
      while (!stopped) {
        try (ResultSet rs = ps.executeQuery()) {
          synchronized (counts) {
            samples++;
            while (rs.next()) {
              counts.merge(rs.getString(1), 1, Integer::sum);
            }
          }
        }
        Thread.sleep(20);
      }
    } catch (SQLException e) {
      synchronized (counts) {
        counts.merge("(sampling failed: " + e.getMessage() + ")", 1, Integer::sum);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Stops sampling; the average number of busy sessions and its largest parts, e.g. {@code 9.1 busy
   * sessions: Lock:transactionid 6.2, IO:WALSync 1.9, running 0.8}.
   */
  String summary() throws InterruptedException {
    stopped = true;
    sampler.join();
    synchronized (counts) {
      double n = Math.max(1, samples);
      int busy = counts.values().stream().mapToInt(Integer::intValue).sum();
      return String.format(Locale.ROOT, "%.1f busy sessions", busy / n)
          + (busy == 0 ? "" : ": ")
          + counts.entrySet().stream()
              .sorted(Map.Entry.<String, Integer>comparingByValue().reversed())
              .limit(4)
              .map(e -> String.format(Locale.ROOT, "%s %.1f", e.getKey(), e.getValue() / n))
              .collect(Collectors.joining(", "));
    }
  }

  @Override
  public void close() throws SQLException {
    stopped = true;
    connection.close();
  }
}
