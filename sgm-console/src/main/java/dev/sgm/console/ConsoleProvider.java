package dev.sgm.console;

import dev.sgm.api.spi.Config;
import dev.sgm.transport.http.spi.WebApp;
import dev.sgm.transport.http.spi.WebAppContext;
import dev.sgm.transport.http.spi.WebAppProvider;

/** Provides the {@code console} web app ({@code webapps.disabled=console} turns it off). */
public final class ConsoleProvider implements WebAppProvider {
  @Override
  public String name() {
    return "console";
  }

  @Override
  public WebApp create(Config config, WebAppContext context) {
    return Console.load();
  }
}
