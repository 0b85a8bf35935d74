package dev.sgm.core;

import dev.sgm.api.Caller;
import dev.sgm.api.Json;
import dev.sgm.api.StoreRequest;
import dev.sgm.api.spi.Config;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The child process of {@link DurabilityTest}: stores records as fast as it can from several
 * threads and prints {@code ACK <id>} only after each store has returned, until it is killed. Ids
 * start with the second argument, when given.
 */
public final class DurabilityWriter {
  private DurabilityWriter() {}

  public static void main(String[] args) throws Exception {
    Config config = ConfigLoader.load(Map.of(ConfigLoader.DATA_DIR, args[0]), Map.of());
    SgmRuntime sgm = SgmRuntime.open(config);
    AtomicInteger next = new AtomicInteger();
    String prefix = args.length > 1 ? args[1] : "";
    Runnable writer =
        () -> {
          while (true) {
            String id = prefix + "r" + next.incrementAndGet();
            sgm.service()
                .store(
                    Caller.embedded(),
                    StoreRequest.of(
                        Json.parseObject(
                            "{\"id\":\""
                                + id
                                + "\",\"type\":\"note\",\"scope\":{\"project\":\"durable\"},"
                                + "\"content\":\"acknowledged before the crash\",\"tags\":[\"t\"],"
                                + "\"provenance\":{\"agent\":\"writer\"}}",
                            "record")));
            synchronized (System.out) {
              System.out.println("ACK " + id);
              System.out.flush();
            }
          }
        };
    for (int i = 0; i < 4; i++) {
      Thread thread = new Thread(writer, "writer-" + i);
      thread.start();
    }
    System.out.println("READY");
    System.out.flush();
    Thread.currentThread().join();
  }
}
