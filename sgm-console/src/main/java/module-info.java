/**
 * The SGM web console: static pages (HTML, CSS, ES modules) that the HTTP transport serves at
 * {@code /} as a web app plugin. The pages read and correct memory through the public HTTP API
 * only, and load nothing from any other host.
 */
module dev.sgm.console {
  requires dev.sgm.transport.http;

  provides dev.sgm.transport.http.spi.WebAppProvider with
      dev.sgm.console.ConsoleProvider;
}
