package dev.sgm.transport.http;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.spi.ClientProvider;
import java.util.List;

/** Provides {@link SgmHttpClient} for {@code http://} and {@code https://} URLs. */
public final class HttpClientProvider implements ClientProvider {
  @Override
  public List<String> schemes() {
    return List.of("http", "https");
  }

  @Override
  public Remote open(String url) {
    return open(url, null);
  }

  @Override
  public Remote open(String url, String token) {
    SgmHttpClient client = new SgmHttpClient(url, java.time.Duration.ofSeconds(30), token);
    return new Remote() {
      @Override
      public JsonNode call(String operation, JsonNode request) {
        return client.call(operation, request);
      }

      @Override
      public void close() {
        client.close();
      }
    };
  }
}
