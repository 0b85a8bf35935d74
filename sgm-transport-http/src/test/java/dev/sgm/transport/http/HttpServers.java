package dev.sgm.transport.http;

import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.util.HashMap;
import java.util.Map;

/** Real SGM servers on loopback, on a free port, over an in-memory store. */
final class HttpServers {
  private static Running shared;

  private HttpServers() {}

  /** A running server: the runtime, its HTTP transport and a client of it. */
  record Running(SgmRuntime runtime, HttpTransport transport, SgmHttpClient client)
      implements AutoCloseable {
    String url() {
      return transport.endpoints().get(0);
    }

    @Override
    public void close() {
      runtime.close();
    }
  }

  static Running start(String... keysAndValues) throws Exception {
    Map<String, String> options = new HashMap<>();
    options.put(ConfigLoader.STORAGE_MEMORY, "true");
    options.put("http.port", "0");
    options.put("http.log-requests", "false");
    for (int i = 0; i < keysAndValues.length; i += 2) {
      options.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    SgmRuntime runtime = SgmRuntime.open(ConfigLoader.load(options, Map.of()));
    HttpTransport http = null;
    try {
      for (Transport transport : runtime.startTransports()) {
        if (transport instanceof HttpTransport t) {
          http = t;
        }
      }
    } catch (Exception e) {
      runtime.close();
      throw e;
    }
    if (http == null) {
      runtime.close();
      throw new IllegalStateException("the http transport was not started");
    }
    return new Running(runtime, http, new SgmHttpClient(http.endpoints().get(0)));
  }

  /** One server for the suites that only need a server, started once per JVM. */
  static synchronized Running shared() throws Exception {
    if (shared == null) {
      shared = start();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }
}
