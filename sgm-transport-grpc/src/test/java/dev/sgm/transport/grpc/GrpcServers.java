package dev.sgm.transport.grpc;

import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import java.util.HashMap;
import java.util.Map;

/**
 * Real SGM servers with the gRPC transport on loopback, on a free port, over an in-memory store.
 */
final class GrpcServers {
  private static Running shared;

  private GrpcServers() {}

  /** A running server and a client of it. */
  record Running(SgmRuntime runtime, GrpcTransport transport, SgmGrpcClient client)
      implements AutoCloseable {
    @Override
    public void close() {
      client.close();
      runtime.close();
    }
  }

  static Running start(String... keysAndValues) throws Exception {
    Map<String, String> options = new HashMap<>();
    options.put(ConfigLoader.STORAGE_MEMORY, "true");
    options.put("grpc.port", "0");
    options.put("transports.enabled", "grpc");
    for (int i = 0; i < keysAndValues.length; i += 2) {
      options.put(keysAndValues[i], keysAndValues[i + 1]);
    }
    SgmRuntime runtime = SgmRuntime.open(ConfigLoader.load(options, Map.of()));
    try {
      for (Transport transport : runtime.startTransports()) {
        if (transport instanceof GrpcTransport grpc) {
          return new Running(runtime, grpc, new SgmGrpcClient(grpc.endpoints().get(0)));
        }
      }
    } catch (Exception e) {
      runtime.close();
      throw e;
    }
    runtime.close();
    throw new IllegalStateException("the grpc transport was not started");
  }

  static synchronized Running shared() throws Exception {
    if (shared == null) {
      shared = start();
      Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
    }
    return shared;
  }
}
