package dev.sgm.api.spi;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sgm.api.OperationDescriptor;
import dev.sgm.api.SgmClient;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Optional;
import java.util.ServiceLoader;

/**
 * A {@link ServiceLoader} provider of a protocol served on standard input and output to a program
 * that launches {@code sgm}, such as MCP for a coding agent ({@code sgm mcp}). The command finds it
 * by name, so it needs no transport of its own.
 */
public interface StdioServerProvider {
  /** The protocol, and the command that serves it, e.g. {@code mcp}. */
  String name();

  /**
   * Serves until {@code in} ends.
   *
   * @param backend where operations run (the engine in-process, or a server)
   * @param operations the operations to offer, as the backend's discovery describes them
   * @param scope the session's default scope, or null
   * @param agent the session's default agent, or null
   * @param version this implementation's version, to tell the client
   */
  void serve(
      SgmClient backend,
      List<OperationDescriptor> operations,
      ObjectNode scope,
      String agent,
      String version,
      InputStream in,
      OutputStream out)
      throws IOException;

  /** The provider of that name on the module path, if one is. */
  static Optional<StdioServerProvider> named(String name) {
    // The module path first: a relay has the MCP plugin there and no need of the others.
    Optional<StdioServerProvider> present =
        named(name, Plugins.loadPresent(StdioServerProvider.class));
    return present.isPresent() ? present : named(name, Plugins.load(StdioServerProvider.class));
  }

  private static Optional<StdioServerProvider> named(
      String name, Iterable<StdioServerProvider> providers) {
    for (StdioServerProvider provider : providers) {
      if (provider.name().equals(name)) {
        return Optional.of(provider);
      }
    }
    return Optional.empty();
  }
}
