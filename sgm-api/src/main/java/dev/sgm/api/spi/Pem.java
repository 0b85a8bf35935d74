package dev.sgm.api.spi;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;

/**
 * A TLS identity from PEM files, as operators have them: a certificate chain and an unencrypted
 * PKCS#8 private key ({@code BEGIN PRIVATE KEY}, RSA or EC), as an in-memory key store for servers
 * that want one; and, for clients, the certificates they trust beyond the system's.
 */
public final class Pem {
  /** The password of the key stores made here; they never leave memory. */
  public static final char[] PASSWORD = "sgm".toCharArray();

  /** The environment variable naming a PEM bundle of CA certificates that clients trust. */
  public static final String CLIENT_CA_ENV = "SGM_TLS_CA";

  /** The system property naming the same, which wins over the environment. */
  public static final String CLIENT_CA_PROPERTY = "sgm.tls.ca";

  private Pem() {}

  /**
   * The PEM bundle that clients of {@code https://} and {@code grpcs://} servers trust instead of
   * the system's certificate authorities (a team's own CA, a self-signed server), when {@value
   * #CLIENT_CA_PROPERTY} or {@value #CLIENT_CA_ENV} names one.
   */
  public static java.util.Optional<Path> clientCa() {
    String named = System.getProperty(CLIENT_CA_PROPERTY, System.getenv(CLIENT_CA_ENV));
    return named == null || named.isBlank()
        ? java.util.Optional.empty()
        : java.util.Optional.of(Path.of(named));
  }

  /**
   * A TLS context that trusts the certificates of {@code bundle} alone; {@code invalid_request}
   * naming the file when it holds none.
   */
  public static javax.net.ssl.SSLContext trusting(Path bundle) {
    try (InputStream in = Files.newInputStream(bundle)) {
      Collection<? extends Certificate> certificates =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (certificates.isEmpty()) {
        throw bad(bundle, "holds no certificate");
      }
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      int n = 0;
      for (Certificate certificate : certificates) {
        trust.setCertificateEntry("ca-" + n++, certificate);
      }
      javax.net.ssl.TrustManagerFactory factory =
          javax.net.ssl.TrustManagerFactory.getInstance(
              javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
      factory.init(trust);
      javax.net.ssl.SSLContext context = javax.net.ssl.SSLContext.getInstance("TLS");
      context.init(null, factory.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw bad(bundle, "is not a readable PEM certificate bundle");
    }
  }

  /**
   * A key store holding the key and chain under the alias {@code sgm}; {@code invalid_request}
   * naming the file when either cannot be read.
   */
  public static KeyStore keyStore(Path certificate, Path key) {
    Collection<? extends Certificate> chain;
    try (InputStream in = Files.newInputStream(certificate)) {
      chain = CertificateFactory.getInstance("X.509").generateCertificates(in);
    } catch (IOException | GeneralSecurityException e) {
      throw bad(certificate, "is not a readable PEM certificate");
    }
    if (chain.isEmpty()) {
      throw bad(certificate, "holds no certificate");
    }
    PrivateKey privateKey = privateKey(key);
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("sgm", privateKey, PASSWORD, chain.toArray(Certificate[]::new));
      return store;
    } catch (IOException | GeneralSecurityException e) {
      throw bad(key, "does not match the certificate");
    }
  }

  private static PrivateKey privateKey(Path key) {
    String text;
    try {
      text = Files.readString(key, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw bad(key, "cannot be read");
    }
    int begin = text.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = text.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < begin) {
      throw bad(key, "must be an unencrypted PKCS#8 key (BEGIN PRIVATE KEY)");
    }
    byte[] der =
        Base64.getMimeDecoder()
            .decode(text.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end));
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        // Try the next algorithm.
      }
    }
    throw bad(key, "holds a key of no supported algorithm (RSA, EC, Ed25519)");
  }

  private static SgmException bad(Path file, String reason) {
    return new SgmException(ErrorCode.INVALID_REQUEST, "TLS file " + file + " " + reason);
  }
}
