/**
 * SGM over HTTP/JSON: every operation as {@code POST /v1/{op}}, discovery, content by hash, health
 * and an OpenAPI description, served by Jetty, with the web apps present ({@code
 * dev.sgm.transport.http.spi}); and a {@code java.net.http} client of the same API.
 */
module dev.sgm.transport.http {
  requires transitive dev.sgm.api;
  requires transitive org.eclipse.jetty.server;
  requires java.net.http;

  exports dev.sgm.transport.http;
  exports dev.sgm.transport.http.spi;

  uses dev.sgm.transport.http.spi.WebAppProvider;

  provides dev.sgm.api.spi.TransportProvider with
      dev.sgm.transport.http.HttpTransportProvider;
  provides dev.sgm.api.spi.ClientProvider with
      dev.sgm.transport.http.HttpClientProvider;
}
