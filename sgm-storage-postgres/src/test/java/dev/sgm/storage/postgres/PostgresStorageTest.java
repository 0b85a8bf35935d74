package dev.sgm.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.sgm.api.Scope;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import dev.sgm.tck.storage.StorageTck;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import org.junit.jupiter.api.Test;

/** The storage conformance suite against PostgreSQL, a new database for each test. */
class PostgresStorageTest extends StorageTck {
  private String url;

  static Storage open(String url) {
    return new PostgresStorageProvider()
        .create(Config.of(PostgresCluster.nodeConfig(url)), StorageContext.of(Path.of("."), false));
  }

  @Override
  protected Storage createEmpty() {
    url = PostgresCluster.get().newDatabase();
    return open(url);
  }

  @Override
  protected Storage reopen() {
    return open(url);
  }

  /**
   * The numbers and logs of a commit go in one statement here: a row written twice in it keeps the
   * later write's number and the first write's as its creation, as when they were written in turn.
   */
  @Test
  void aRowWrittenTwiceInOneCommitKeepsTheLaterNumberInItsRow() throws Exception {
    Scope alpha = scope("alpha");
    long mark = storage.committedSequence();
    storage.inTransaction(
        tx -> {
          tx.put(row(alpha, "twice", 1, "first"), stored("a", true));
          tx.put(row(alpha, "other", 1, "other"), stored("a", true));
          tx.put(row(alpha, "twice", 2, "second"), stored("b", true));
          return null;
        });
    try (Connection c = DriverManager.getConnection(url, "sgm", "sgm");
        PreparedStatement ps =
            c.prepareStatement("SELECT seq, created_seq FROM records WHERE id = 'twice'");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      assertEquals(mark + 3, rs.getLong(1), "the row's number is its last write's");
      assertEquals(mark + 1, rs.getLong(2), "its creation's number is the first write's");
    }
  }
}
