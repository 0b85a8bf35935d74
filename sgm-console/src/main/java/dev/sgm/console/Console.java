package dev.sgm.console;

import dev.sgm.transport.http.spi.WebApp;
import dev.sgm.transport.http.spi.WebResource;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The console's files, read from this module once at start-up: {@code /} is the page, and {@code
 * /console/...} its styles and scripts. Every response carries a Content-Security-Policy that lets
 * the page load and connect to this origin only, so nothing can reach another host.
 */
final class Console implements WebApp {
  /**
   * The files served, by the path under {@code /console/}; the page itself is {@code index.html}.
   */
  static final java.util.List<String> FILES =
      java.util.List.of(
          "index.html",
          "style.css",
          "app.js",
          "api.js",
          "diff.js",
          "scope.js",
          "dom.js",
          "pages/scopes.js",
          "pages/records.js",
          "pages/record.js",
          "pages/collaboration.js",
          "pages/snapshots.js",
          "favicon.svg");

  static final String POLICY =
      "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none';"
          + " form-action 'self'";

  private static final Map<String, String> HEADERS =
      Map.of(
          "Content-Security-Policy", POLICY,
          "X-Content-Type-Options", "nosniff",
          "Referrer-Policy", "no-referrer",
          "Cache-Control", "no-cache");

  private final Map<String, WebResource> byPath;

  private Console(Map<String, WebResource> byPath) {
    this.byPath = byPath;
  }

  static Console load() {
    Map<String, WebResource> byPath = new LinkedHashMap<>();
    for (String file : FILES) {
      WebResource resource = new WebResource(contentType(file), read(file), HEADERS);
      byPath.put("/console/" + file, resource);
      if (file.equals("index.html")) {
        byPath.put("/", resource);
      }
    }
    return new Console(Map.copyOf(byPath));
  }

  @Override
  public Optional<WebResource> get(String path) {
    return Optional.ofNullable(byPath.get(path));
  }

  private static byte[] read(String file) {
    try (InputStream in = Console.class.getResourceAsStream("web/" + file)) {
      if (in == null) {
        throw new IllegalStateException("the console's file " + file + " is missing from its jar");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static String contentType(String file) {
    String extension = file.substring(file.lastIndexOf('.') + 1);
    return switch (extension) {
      case "html" -> "text/html; charset=utf-8";
      case "css" -> "text/css; charset=utf-8";
      case "js" -> "text/javascript; charset=utf-8";
      case "svg" -> "image/svg+xml";
      default -> "application/octet-stream";
    };
  }
}
