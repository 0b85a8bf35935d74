package dev.sgm.core;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Transport;
import dev.sgm.api.spi.TransportContext;
import dev.sgm.api.spi.TransportProvider;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test transport that records its life cycle, found through META-INF/services on the test class
 * path.
 */
public final class RecordingTransportProvider implements TransportProvider {
  static final List<String> EVENTS = new CopyOnWriteArrayList<>();

  @Override
  public String name() {
    return "recording";
  }

  @Override
  public Transport create(Config config, TransportContext context) {
    return new Transport() {
      @Override
      public void start() {
        EVENTS.add("start " + context.service().operations().size());
      }

      @Override
      public List<String> endpoints() {
        return List.of("memory:recording");
      }

      @Override
      public void close() {
        EVENTS.add("close");
      }
    };
  }
}
