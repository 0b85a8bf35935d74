package dev.sgm.transport.cli;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Transport;
import dev.sgm.api.spi.TransportContext;
import dev.sgm.api.spi.TransportProvider;
import java.util.List;

/**
 * Provides the {@code cli} transport: the {@code sgm} command reaches the engine in-process, so
 * there is nothing to listen on; being present makes discovery advertise {@code cli}.
 */
public final class CliTransportProvider implements TransportProvider {
  @Override
  public String name() {
    return "cli";
  }

  @Override
  public int order() {
    return 40;
  }

  @Override
  public Transport create(Config config, TransportContext context) {
    return new Transport() {
      @Override
      public void start() {}

      @Override
      public List<String> endpoints() {
        return List.of();
      }

      @Override
      public void close() {}
    };
  }
}
