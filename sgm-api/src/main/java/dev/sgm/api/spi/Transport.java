package dev.sgm.api.spi;

import java.util.List;

/** A running binding of the SGM operations to one wire protocol. */
public interface Transport extends AutoCloseable {
  /** Starts serving; returns once it accepts calls. */
  void start() throws Exception;

  /** Where it serves, for people to read, e.g. {@code http://127.0.0.1:7410}. */
  List<String> endpoints();

  /** Stops accepting calls, lets in-flight calls finish, and releases its resources. */
  @Override
  void close();
}
