package dev.sgm.transport.http;

import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.Transport;
import dev.sgm.api.spi.TransportContext;
import dev.sgm.api.spi.TransportProvider;

/** Provides the {@code http} transport: SGM over HTTP/JSON on Jetty. */
public final class HttpTransportProvider implements TransportProvider {
  @Override
  public String name() {
    return "http";
  }

  @Override
  public int order() {
    return 20;
  }

  @Override
  public Transport create(Config config, TransportContext context) {
    return new HttpTransport(HttpSettings.from(config), context.service());
  }
}
