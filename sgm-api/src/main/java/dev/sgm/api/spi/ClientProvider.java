package dev.sgm.api.spi;

import dev.sgm.api.ErrorCode;
import dev.sgm.api.SgmClient;
import dev.sgm.api.SgmException;
import java.util.List;
import java.util.ServiceLoader;
import java.util.TreeSet;

/**
 * A {@link ServiceLoader} provider of clients of remote SGM servers, one per transport, chosen by
 * the URL's scheme ({@code http}, {@code grpc}, {@code mcp+http}, ...). A program that needs a
 * client asks {@link #connect}, and works with whichever transports are on its module path.
 */
public interface ClientProvider {
  /** The URL schemes this provider's client speaks, e.g. {@code http} and {@code https}. */
  List<String> schemes();

  /** A client of the server at {@code url}. Close it when done. */
  Remote open(String url);

  /**
   * A client of the server at {@code url} that presents {@code token} (null: none) as its bearer
   * token.
   */
  default Remote open(String url, String token) {
    if (token == null) {
      return open(url);
    }
    throw new SgmException(
        ErrorCode.UNSUPPORTED_CAPABILITY, "the client of " + url + " cannot present a token");
  }

  /** A client that holds a connection until it is closed. */
  interface Remote extends SgmClient, AutoCloseable {
    @Override
    void close();
  }

  /**
   * A client of the server at {@code url}, from the provider of its scheme; {@code
   * unsupported_capability} naming the schemes available when none speaks it.
   */
  static Remote connect(String url) {
    return connect(url, null);
  }

  /** As {@link #connect(String)}, presenting {@code token} (null: none) to the server. */
  static Remote connect(String url, String token) {
    int colon = url.indexOf("://");
    String scheme = colon < 0 ? "" : url.substring(0, colon);
    TreeSet<String> known = new TreeSet<>();
    for (ClientProvider provider : Plugins.load(ClientProvider.class)) {
      if (provider.schemes().contains(scheme)) {
        return provider.open(url, token);
      }
      known.addAll(provider.schemes());
    }
    throw new SgmException(
        ErrorCode.UNSUPPORTED_CAPABILITY,
        "'"
            + url
            + "' is not a URL of a client on the module path; the schemes available are "
            + known.stream().map(s -> s + "://").toList());
  }
}
