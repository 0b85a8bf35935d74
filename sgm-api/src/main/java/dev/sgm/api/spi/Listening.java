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
