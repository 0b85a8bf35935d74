package dev.sgm.transport.http.spi;

import java.util.Map;
import java.util.Objects;

/**
 * One resource a {@link WebApp} serves.
 *
 * @param contentType the {@code Content-Type} to send
 * @param body the bytes, sent as they are
 * @param headers further response headers (a {@code Content-Security-Policy}, caching)
 */
public record WebResource(String contentType, byte[] body, Map<String, String> headers) {
  public WebResource {
    Objects.requireNonNull(contentType, "contentType");
    Objects.requireNonNull(body, "body");
    headers = Map.copyOf(headers);
  }
}
