package dev.sgm.storage.postgres;

import dev.sgm.api.SgmClient;
import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.transport.http.SgmHttpClient;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Real SGM server nodes over HTTP on loopback, on PostgreSQL: one node for the suites, and two
 * nodes sharing one database whose client alternates between them call by call.
 */
final class PostgresServers {
  private static Node single;
  private static SgmClient alternating;

  private PostgresServers() {}

  /** One server node: its runtime and the URL of its HTTP transport. */
  record Node(SgmRuntime runtime, String url) implements AutoCloseable {
    @Override
    public void close() {
      runtime.close();
    }
  }

  /** A node on the database at {@code databaseUrl}, with its own data directory (search index). */
  static Node start(String databaseUrl, String... keysAndValues) throws IOException {
    Map<String, String> options = new java.util.HashMap<>(PostgresCluster.nodeConfig(databaseUrl));
    Path data = Files.createTempDirectory("sgm-pg-node");
    options.put(ConfigLoader.DATA_DIR, data.toString());
    options.put("http.port", "0");
    options.put("http.log-requests", "false");
    for (int i = 0; i < keysAndValues.length; i += 2) {
      options.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    SgmRuntime runtime = SgmRuntime.open(ConfigLoader.load(options, Map.of()));
    try {
      for (Transport transport : runtime.startTransports()) {
        if (transport.endpoints().get(0).startsWith("http://")) {
          return new Node(runtime, transport.endpoints().get(0));
        }
      }
    } catch (Exception e) {
      runtime.close();
      throw new IllegalStateException(e);
    }
    runtime.close();
    throw new IllegalStateException("the http transport was not started");
  }

  /** The client of one node on its own database, started once per JVM. */
  static synchronized SgmClient single() {
    if (single == null) {
      try {
        single = start(PostgresCluster.get().newDatabase());
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(single::close));
    }
    return new SgmHttpClient(single.url());
  }

  /**
   * A client of two nodes on one database that sends each call to the other node than the last:
   * whatever one node wrote, the next call reads through the other.
   */
  static synchronized SgmClient alternating() {
    if (alternating == null) {
      try {
        String database = PostgresCluster.get().newDatabase();
        Node a = start(database);
        Node b = start(database);
        Runtime.getRuntime()
            .addShutdownHook(
                new Thread(
                    () -> {
                      a.close();
                      b.close();
                    }));
        List<SgmClient> nodes = List.of(new SgmHttpClient(a.url()), new SgmHttpClient(b.url()));
        AtomicInteger next = new AtomicInteger();
        alternating =
            (operation, request) ->
                nodes.get(Math.floorMod(next.getAndIncrement(), 2)).call(operation, request);
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
    return alternating;
  }
}
