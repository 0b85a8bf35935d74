package dev.sgm.api.spi;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The rules of where network transports may listen: on loopback only, until authentication is
 * configured, and on a port that exists. Every network transport asks here before it binds.
 */
public final class Listening {
  private Listening() {}

  /**
   * The port configured at {@code key}, or {@code defaultPort}; 0 asks for a free one. Fails with
   * {@code invalid_request} naming the key for anything outside 0 to 65535.
   */
  public static int port(Config config, String key, int defaultPort) {
    int port = config.getInt(key, defaultPort);
    if (port < 0 || port > 65535) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST, "configuration " + key + ": " + port + " is not a port");
    }
    return port;
  }

  /** Starts a server that binds a port. */
  @FunctionalInterface
  public interface Binding {
    void start() throws Exception;
  }

  /**
   * Runs {@code binding}; a port already in use fails with {@code unavailable} naming the port, the
   * key that sets it and what to do, rather than the network library's words.
   *
   * @param key the configuration key of the port, for the message
   */
  public static void bind(String host, int port, String key, Binding binding) throws Exception {
    try {
      binding.start();
    } catch (Exception e) {
      for (Throwable cause = e; cause != null; cause = cause.getCause()) {
        if (cause instanceof java.net.BindException) {
          throw new SgmException(
              ErrorCode.UNAVAILABLE,
              "port "
                  + port
                  + " on "
                  + host
                  + " is in use (by another server, or another SGM already running): stop it, or"
                  + " choose another port with -D "
                  + key
                  + "=<port> (0 takes a free one)",
              java.util.List.of(),
              e);
        }
      }
      throw e;
    }
  }

  /** The option that lets a server listen off loopback without TLS, at the operator's word. */
  public static final String PLAINTEXT = "listen.plaintext";

  /**
   * The rule of CONTRACT §8 for where a server may listen: anywhere on loopback; elsewhere only
   * with authentication on, and with TLS unless the operator opted into plaintext ({@value
   * #PLAINTEXT}), which is logged as a warning. Fails with {@code forbidden} saying what to
   * configure.
   *
   * @param key the configuration key that set the host, for the message
   * @param authenticates whether requests must carry a token
   * @param tls whether the transport has a TLS identity
   * @param plaintext whether the operator allowed plaintext off loopback ({@value #PLAINTEXT})
   */
  public static void check(
      String host, String key, boolean authenticates, boolean tls, boolean plaintext) {
    if (loopback(host, key)) {
      return;
    }
    if (!authenticates) {
      throw new SgmException(
          ErrorCode.FORBIDDEN,
          key
              + " "
              + host
              + " is not a loopback address; listening beyond this machine needs authentication:"
              + " set auth.enabled=true and create tokens (sgm token create), or a bootstrap token");
    }
    if (!tls) {
      if (!plaintext) {
        throw new SgmException(
            ErrorCode.FORBIDDEN,
            key
                + " "
                + host
                + " is not a loopback address; listening beyond this machine needs TLS (the"
                + " transport's tls.cert and tls.key PEM files), or "
                + PLAINTEXT
                + "=true to accept plaintext");
      }
      System.getLogger(Listening.class.getName())
          .log(
              System.Logger.Level.WARNING,
              "{0} {1}: listening off loopback without TLS ({2}=true): tokens and records cross"
                  + " the network in the clear",
              key,
              host,
              PLAINTEXT);
    }
  }

  private static boolean loopback(String host, String key) {
    try {
      for (InetAddress address : InetAddress.getAllByName(host)) {
        if (!address.isLoopbackAddress()) {
          return false;
        }
      }
      return true;
    } catch (UnknownHostException e) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "configuration " + key + ": '" + host + "' cannot be resolved");
    }
  }

  /**
   * Fails with {@code forbidden} unless every address of {@code host} is a loopback one.
   *
   * @param key the configuration key that set the host, for the message
   */
  public static void requireLoopback(String host, String key) {
    try {
      for (InetAddress address : InetAddress.getAllByName(host)) {
        if (!address.isLoopbackAddress()) {
          throw new SgmException(
              ErrorCode.FORBIDDEN,
              key
                  + " "
                  + host
                  + " is not a loopback address; listening beyond this machine needs authentication,"
                  + " which is not offered yet");
        }
      }
    } catch (UnknownHostException e) {
      throw new SgmException(
          ErrorCode.INVALID_REQUEST,
          "configuration " + key + ": '" + host + "' cannot be resolved");
    }
  }
}
