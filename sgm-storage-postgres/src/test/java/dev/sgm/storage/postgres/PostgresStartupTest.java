package dev.sgm.storage.postgres;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.Json;
import dev.sgm.api.Scope;
import dev.sgm.api.SgmException;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Storage;
import dev.sgm.api.spi.StorageContext;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Connection settings are checked at start-up and each fault is named; a database that goes away
 * while serving answers unavailable, and the store recovers by itself when it is back.
 */
class PostgresStartupTest {
  private static SgmException startWith(Map<String, String> overrides) {
    Map<String, String> config =
        new HashMap<>(PostgresCluster.nodeConfig("jdbc:postgresql://127.0.0.1:1/x"));
    config.putAll(overrides);
    return assertThrows(
        SgmException.class,
        () ->
            new PostgresStorageProvider()
                .create(Config.of(config), StorageContext.of(Path.of("."), false))
                .close());
  }

  @Test
  void aBadUrlIsNamed() {
    SgmException e = startWith(Map.of(PostgresSettings.URL, "postgres://localhost/sgm"));
    assertEquals(ErrorCode.INVALID_REQUEST, e.code());
    assertTrue(e.getMessage().contains("is not a PostgreSQL JDBC URL"), e.getMessage());
    e = startWith(Map.of(PostgresSettings.URL, ""));
    assertTrue(e.getMessage().contains(PostgresSettings.URL + ": is required"), e.getMessage());
  }

  @Test
  void anUnreachableServerIsNamed() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    SgmException e =
        startWith(Map.of(PostgresSettings.URL, "jdbc:postgresql://127.0.0.1:" + port + "/sgm"));
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("cannot be reached"), e.getMessage());
    assertTrue(e.getMessage().contains("127.0.0.1:" + port + "/sgm"), e.getMessage());
  }

  @Test
  void aWrongPasswordIsNamedWithoutShowingIt() {
    PostgresCluster cluster = PostgresCluster.get();
    SgmException e =
        startWith(Map.of(PostgresSettings.URL, cluster.url, PostgresSettings.PASSWORD, "guess"));
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("wrong password"), e.getMessage());
    assertFalse(e.getMessage().contains("guess"), e.getMessage());
  }

  @Test
  void aMissingDatabaseIsNamed() {
    PostgresCluster cluster = PostgresCluster.get();
    String url = cluster.url.substring(0, cluster.url.lastIndexOf('/') + 1) + "nosuchdb";
    SgmException e = startWith(Map.of(PostgresSettings.URL, url));
    assertTrue(e.getMessage().contains("has no database 'nosuchdb'"), e.getMessage());
  }

  @Test
  void theEngineDoesNotStartHalfWay() {
    Map<String, String> options =
        new HashMap<>(PostgresCluster.nodeConfig("jdbc:postgresql://127.0.0.1:1/sgm"));
    options.put("transports.enabled", "http");
    SgmException e =
        assertThrows(
            SgmException.class, () -> SgmRuntime.open(ConfigLoader.load(options, Map.of())));
    assertEquals(ErrorCode.UNAVAILABLE, e.code());
    assertTrue(e.getMessage().contains("cannot be reached"), e.getMessage());
    options.put(ConfigLoader.STORAGE_MEMORY, "true");
    e =
        assertThrows(
            SgmException.class, () -> SgmRuntime.open(ConfigLoader.load(options, Map.of())));
    assertTrue(e.getMessage().contains("cannot run with storage.memory"), e.getMessage());
  }

  @Test
  void aDatabaseThatGoesAwayIsUnavailableAndTheStoreRecovers() throws Exception {
    PostgresCluster cluster = PostgresCluster.get();
    String url = cluster.newDatabase();
    try (SgmRuntime sgm =
        SgmRuntime.open(
            ConfigLoader.load(
                Map.of(
                    "storage",
                    "postgres",
                    PostgresSettings.URL,
                    url,
                    PostgresSettings.USER,
                    "sgm",
                    PostgresSettings.PASSWORD,
                    "sgm",
                    PostgresSettings.CONNECT_TIMEOUT,
                    "2",
                    ConfigLoader.DATA_DIR,
                    java.nio.file.Files.createTempDirectory("sgm-pg").toString()),
                Map.of()))) {
      String store =
          "{\"record\":{\"id\":\"n1\",\"type\":\"note\",\"scope\":{\"project\":\"down\"},"
              + "\"content\":\"x\",\"provenance\":{\"agent\":\"a\"}}}";
      sgm.service().invoke(dev.sgm.api.Caller.embedded(), "store", Json.parse(store));
      cluster.run("down");
      try {
        SgmException e =
            assertThrows(
                SgmException.class,
                () ->
                    sgm.service()
                        .invoke(
                            dev.sgm.api.Caller.embedded(),
                            "read",
                            Json.parse("{\"scope\":{\"project\":\"down\"},\"id\":\"n1\"}")));
        assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
        assertFalse(e.getMessage().contains("SQL"), e.getMessage());
      } finally {
        cluster.run("up");
      }
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (true) {
        try {
          var read =
              sgm.service()
                  .invoke(
                      dev.sgm.api.Caller.embedded(),
                      "read",
                      Json.parse("{\"scope\":{\"project\":\"down\"},\"id\":\"n1\"}"));
          assertEquals("x", read.path("record").path("content").asText());
          break;
        } catch (SgmException e) {
          assertEquals(ErrorCode.UNAVAILABLE, e.code(), e.getMessage());
          if (System.nanoTime() > deadline) {
            throw e;
          }
          Thread.sleep(200);
        }
      }
    }
    Storage storage = PostgresStorageTest.open(url);
    try {
      assertTrue(storage.find(Scope.of("project", "down"), "n1").isPresent());
    } finally {
      storage.close();
    }
  }
}
