package dev.sgm.transport.http.spi;

import java.util.Optional;

/**
 * Pages the HTTP transport serves beside the API: it asks a web app for every {@code GET} outside
 * the API's own paths ({@code /v1/}, {@code /healthz}, {@code /openapi.json}, {@code
 * /.well-known/}), before authentication, so a page can load and then ask for a token. A web app
 * holds no privilege: what it shows it reads through the public API, as any client does.
 */
public interface WebApp {
  /**
   * The resource at {@code path} (the request path, starting with {@code /}), or empty when this
   * web app has none there.
   */
  Optional<WebResource> get(String path);
}
