package dev.sgm.api.spi;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmException;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The one rule of where network transports may listen: on loopback only, until authentication is
 * configured. Every network transport asks here before it binds.
 */
public final class Listening {
  private Listening() {}

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
