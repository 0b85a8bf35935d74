package dev.sgm.storage.h2;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.Scope;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a process killed at any moment of a concurrent store load leaves: every write the store made
 * to its file is recorded, and the file as it stood after each of hundreds of them (what the OS
 * keeps when the process dies there) is opened again. Every store acknowledged before that moment
 * must be there, and every transaction must see the same rows: a write that recovery could not roll
 * back (made, but not logged for undo, when a save caught it) is seen only by a transaction that
 * reuses the dead one's number, and can swallow a store sent again after the crash.
 */
class H2CrashPointsTest {
  private static final Scope SCOPE = Scope.of("project", "crash");
  private static final int WRITERS = 12;
  private static final int CRASH_POINTS = 600;

  /** Numbers H2 hands out again after a crash: the lowest free ones. */
  private static final int TRANSACTION_NUMBERS = 12;

  private static final List<String> VIEWS =
      List.of(
          "SELECT COUNT(*) FROM records WHERE version >= 0",
          "SELECT COUNT(*) FROM records WHERE scope_key >= ''",
          "SELECT COUNT(*) FROM records WHERE seq >= 0",
          "SELECT COUNT(*) FROM changes WHERE seq >= 0",
          "SELECT COUNT(*) FROM changes WHERE at_us >= 0");

  @Test
  void aStoreKilledAtAnyWriteRecoversEveryAcknowledgedStoreAndNoHalfTransaction(@TempDir Path dir)
      throws Exception {
    Map<String, Integer> acknowledgedAfter = new ConcurrentHashMap<>();
    WriteRecordingFilePath.take();
    try (Storage storage =
        new H2StorageProvider()
            .create(
                Config.empty(),
                StorageContext.of(dir.resolve("run"), false),
                WriteRecordingFilePath.prefix())) {
      AtomicBoolean stop = new AtomicBoolean();
      List<Thread> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        String prefix = "w" + w + "-";
        writers.add(
            Thread.ofPlatform()
                .start(
                    () -> {
                      for (int i = 0; !stop.get(); i++) {
                        String id = prefix + i;
                        store(storage, id);
                        acknowledgedAfter.put(id, WriteRecordingFilePath.count());
                      }
                    }));
      }
      Thread.sleep(2000);
      stop.set(true);
      for (Thread writer : writers) {
        writer.join();
      }
    }
    List<WriteRecordingFilePath.Write> writes = WriteRecordingFilePath.take();
    assertTrue(acknowledgedAfter.size() > 500, "too few stores: " + acknowledgedAfter.size());

    Path replayed = dir.resolve("replayed.mv.db");
    Path crashed = dir.resolve("crashed");
    Files.createDirectories(crashed);
    int step = Math.max(1, writes.size() / CRASH_POINTS);
    List<String> failures = new ArrayList<>();
    int points = 0;
    try (RandomAccessFile file = new RandomAccessFile(replayed.toFile(), "rw")) {
      for (int k = 0; k < writes.size(); k++) {
        WriteRecordingFilePath.Write write = writes.get(k);
        if (write.bytes() == null) {
          file.setLength(write.length());
        } else {
          file.seek(write.position());
          file.write(write.bytes());
        }
        // Crash points from where the schema is written on; the last write is always one.
        if ((k % step != step - 1 || k < 100) && k != writes.size() - 1) {
          continue;
        }
        points++;
        Files.copy(replayed, crashed.resolve("sgm.mv.db"), StandardCopyOption.REPLACE_EXISTING);
        String failure = check("jdbc:h2:" + crashed.resolve("sgm"), k + 1, acknowledgedAfter);
        if (failure != null) {
          failures.add("killed after write " + (k + 1) + " of " + writes.size() + ": " + failure);
        }
      }
    }
    assertTrue(points >= Math.min(CRASH_POINTS, writes.size() - 100) / 2, points + " points");
    assertEquals(List.of(), failures, failures.size() + " of " + points + " crash points failed");
  }

  private static void store(Storage storage, String id) {
    StoredNotes.store(storage, SCOPE, id, "x".repeat(300));
  }

  /**
   * Opens the file as the crash left it: null if every transaction number sees the same rows and
   * every store acknowledged by then is there, else what is wrong.
   */
  private static String check(String url, int writesMade, Map<String, Integer> acknowledgedAfter)
      throws SQLException {
    List<Connection> connections = new ArrayList<>();
    try {
      Map<String, Integer> views = new TreeMap<>();
      for (int i = 0; i < TRANSACTION_NUMBERS; i++) {
        Connection c = DriverManager.getConnection(url + ";DB_CLOSE_ON_EXIT=FALSE", "sgm", "");
        connections.add(c);
        c.setAutoCommit(false);
        try (Statement s = c.createStatement()) {
          s.execute("DELETE FROM sgm_meta WHERE name = 'no such entry'"); // takes a number now
        }
      }
      for (Connection c : connections) {
        StringBuilder view = new StringBuilder();
        for (String query : VIEWS) {
          try (Statement s = c.createStatement();
              ResultSet rs = s.executeQuery(query)) {
            rs.next();
            view.append(rs.getLong(1)).append(' ');
          }
        }
        views.merge(view.toString().trim(), 1, Integer::sum);
      }
      if (views.size() > 1) {
        return "transactions see different rows (counts by query: number of transactions) " + views;
      }
      Set<String> there = new HashSet<>();
      Connection c = connections.get(0);
      try (Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT id FROM records")) {
        while (rs.next()) {
          there.add(rs.getString(1));
        }
      }
      List<String> lost = new ArrayList<>();
      acknowledgedAfter.forEach(
          (id, after) -> {
            if (after <= writesMade && !there.contains(id)) {
              lost.add(id);
            }
          });
      return lost.isEmpty() ? null : "acknowledged stores missing: " + lost;
    } finally {
      for (Connection c : connections) {
        c.rollback();
        c.close();
      }
    }
  }
}
