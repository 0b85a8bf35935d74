package dev.sgm.transport.grpc;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.spi.ClientProvider;
import java.util.List;

/**
 * Provides {@link SgmGrpcClient} for {@code grpc://host:port} (plaintext) and {@code
 * grpcs://host:port} (TLS) URLs.
 */
public final class GrpcClientProvider implements ClientProvider {
  @Override
  public List<String> schemes() {
    return List.of("grpc", "grpcs");
  }

  @Override
  public Remote open(String url) {
    return open(url, null);
  }

  @Override
  public Remote open(String url, String token) {
    SgmGrpcClient client = new SgmGrpcClient(url, java.time.Duration.ofSeconds(30), token);
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
