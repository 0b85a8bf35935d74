package dev.sgm.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.sgm.api.Grants;
import dev.sgm.api.Json;
import dev.sgm.api.Sensitivity;
import dev.sgm.api.spi.Transport;
import dev.sgm.core.ConfigLoader;
import dev.sgm.core.SgmRuntime;
import dev.sgm.transport.grpc.MemoryGrpc;
import io.grpc.Grpc;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.MetadataUtils;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS from PEM files on every network transport, with a certificate generated here: HTTPS, gRPC
 * over TLS and MCP over HTTPS each answer a token's {@code whoami}.
 */
class TlsTest {
  @TempDir Path dir;

  @Test
  void everyTransportServesTlsFromPemFiles() throws Exception {
    Path cert = dir.resolve("cert.pem");
    Path key = dir.resolve("key.pem");
    Process openssl =
        new ProcessBuilder(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=localhost",
                "-addext",
                "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout",
                key.toString(),
                "-out",
                cert.toString())
            .redirectErrorStream(true)
            .start();
    openssl.getInputStream().readAllBytes();
    assumeTrue(
        openssl.waitFor(60, TimeUnit.SECONDS) && openssl.exitValue() == 0, "openssl is needed");
    Map<String, String> options = new LinkedHashMap<>();
    options.put(ConfigLoader.STORAGE_MEMORY, "true");
    options.put("auth.enabled", "true");
    for (String transport : List.of("http", "grpc", "mcp")) {
      options.put(transport + ".port", "0");
      options.put(transport + ".tls.cert", cert.toString());
      options.put(transport + ".tls.key", key.toString());
    }
    try (SgmRuntime runtime = SgmRuntime.open(ConfigLoader.load(options, Map.of()))) {
      String token =
          runtime
              .tokens()
              .create(
                  "tls",
                  List.of(Grants.Grant.parse("project=t:read")),
                  Set.of(),
                  Sensitivity.SECRET,
                  null)
              .token();
      Map<String, String> endpoints = new LinkedHashMap<>();
      for (Transport transport : runtime.startTransports()) {
        if (transport.endpoints().isEmpty()) {
          continue; // the command line is a transport without a network endpoint
        }
        String endpoint = transport.endpoints().get(0);
        endpoints.put(
            endpoint.startsWith("grpc") ? "grpc" : endpoint.endsWith("/mcp") ? "mcp" : "http",
            endpoint);
      }
      SSLContext trusting = trusting(cert);
      String http = endpoints.get("http");
      assertEquals("https", URI.create(http).getScheme());
      String[] whoami = post(trusting, http + "/v1/whoami", token, "{}");
      assertEquals("200", whoami[0], whoami[1]);
      assertEquals("tls", Json.parse(whoami[1]).path("principal").asText());
      String[] mcp =
          post(
              trusting,
              endpoints.get("mcp"),
              token,
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{}}");
      assertEquals("200", mcp[0], mcp[1]);
      assertEquals(
          "sgm-java", Json.parse(mcp[1]).path("result").path("serverInfo").path("name").asText());

      // The transports' own clients, as --remote uses them, trust the CA that sgm.tls.ca names.
      assertTrue(endpoints.get("grpc").startsWith("grpcs://"), endpoints.get("grpc"));
      try (dev.sgm.api.spi.ClientProvider.Remote untrusting =
          dev.sgm.api.spi.ClientProvider.connect(endpoints.get("grpc"), token)) {
        assertThrows(
            dev.sgm.api.SgmException.class, () -> untrusting.call("whoami", Json.object()));
      }
      System.setProperty(dev.sgm.api.spi.Pem.CLIENT_CA_PROPERTY, cert.toString());
      try {
        for (String url : List.of(endpoints.get("grpc"), http)) {
          try (dev.sgm.api.spi.ClientProvider.Remote remote =
              dev.sgm.api.spi.ClientProvider.connect(url, token)) {
            assertEquals(
                "tls", remote.call("whoami", Json.object()).path("principal").asText(), url);
          }
        }
      } finally {
        System.clearProperty(dev.sgm.api.spi.Pem.CLIENT_CA_PROPERTY);
      }

      String grpc = endpoints.get("grpc").substring("grpcs://".length());
      ManagedChannel channel =
          Grpc.newChannelBuilder(
                  grpc, TlsChannelCredentials.newBuilder().trustManager(cert.toFile()).build())
              .overrideAuthority("localhost")
              .build();
      try {
        Metadata headers = new Metadata();
        headers.put(
            Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
        JsonNode answer =
            Json.parse(
                MemoryGrpc.newBlockingStub(channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers))
                    .invoke(
                        dev.sgm.transport.grpc.InvokeRequest.newBuilder()
                            .setOperation("whoami")
                            .setJson("{}")
                            .build())
                    .getJson());
        assertEquals("tls", answer.path("principal").asText());
      } finally {
        channel.shutdownNow();
      }
    }
  }

  /** Status and body of a JSON POST over HTTPS that trusts only {@code context}'s certificate. */
  private static String[] post(SSLContext context, String url, String token, String body)
      throws Exception {
    HttpsURLConnection connection = (HttpsURLConnection) URI.create(url).toURL().openConnection();
    connection.setSSLSocketFactory(context.getSocketFactory());
    connection.setRequestMethod("POST");
    connection.setDoOutput(true);
    connection.setRequestProperty("Authorization", "Bearer " + token);
    connection.setRequestProperty("Content-Type", "application/json");
    try (OutputStream out = connection.getOutputStream()) {
      out.write(body.getBytes(StandardCharsets.UTF_8));
    }
    int status = connection.getResponseCode();
    try (InputStream in =
        status < 400 ? connection.getInputStream() : connection.getErrorStream()) {
      return new String[] {
        String.valueOf(status), new String(in.readAllBytes(), StandardCharsets.UTF_8)
      };
    }
  }

  private static SSLContext trusting(Path cert) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    try (InputStream in = Files.newInputStream(cert)) {
      trust.setCertificateEntry(
          "sgm", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return context;
  }
}
