package dev.sgm.transport.http;

import dev.sgm.api.spi.Config;
import dev.sgm.transport.http.spi.WebApp;
import dev.sgm.transport.http.spi.WebAppContext;
import dev.sgm.transport.http.spi.WebAppProvider;
import dev.sgm.transport.http.spi.WebResource;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Optional;

/**
 * A web app for the tests: it claims every path under {@code /greeting/}, and the API's own paths
 * too, which the transport must never hand it.
 */
public final class GreetingWebAppProvider implements WebAppProvider {
  @Override
  public String name() {
    return "greeting";
  }

  @Override
  public WebApp create(Config config, WebAppContext context) {
    return path ->
        path.startsWith("/greeting/") || path.startsWith("/v1/") || path.startsWith("/.well-known/")
            ? Optional.of(
                new WebResource(
                    "text/plain; charset=utf-8",
                    ("hello from " + path + " auth=" + context.authenticates())
                        .getBytes(StandardCharsets.UTF_8),
                    Map.of("Content-Security-Policy", "default-src 'self'")))
            : Optional.empty();
  }
}
