package dev.sgm.transport.http;

import dev.sgm.api.SgmService;
import dev.sgm.api.spi.Config;
import dev.sgm.api.spi.PluginSelection;
import dev.sgm.api.spi.Transport;
import dev.sgm.api.spi.TransportContext;
import dev.sgm.api.spi.TransportProvider;
import dev.sgm.transport.http.spi.WebApp;
import dev.sgm.transport.http.spi.WebAppContext;
import dev.sgm.transport.http.spi.WebAppProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;

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
  public Set<String> configKeys() {
    return Set.of(
        "http.host",
        "http.port",
        "http.tls.cert",
        "http.tls.key",
        "http.max-body-bytes",
        "http.log-requests",
        "http.stop-timeout-ms",
        "webapps.enabled",
        "webapps.disabled");
  }

  @Override
  public Transport create(Config config, TransportContext context) {
    return new HttpTransport(
        HttpSettings.from(config), context.service(), webApps(config, context.service()));
  }

  /** The web apps present and enabled ({@code webapps.enabled} / {@code webapps.disabled}). */
  static List<WebApp> webApps(Config config, SgmService service) {
    List<WebAppProvider> found = new ArrayList<>();
    ServiceLoader.load(WebAppProvider.class, HttpTransportProvider.class.getClassLoader())
        .forEach(found::add);
    WebAppContext context = new WebAppContext(service.authenticates());
    return PluginSelection.select("webapp", "sgm-", found, config).stream()
        .map(provider -> provider.create(config, context))
        .toList();
  }
}
