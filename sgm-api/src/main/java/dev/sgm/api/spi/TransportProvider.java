package dev.sgm.api.spi;

/** A {@link java.util.ServiceLoader} provider of a transport binding (gRPC, HTTP, MCP, CLI). */
public interface TransportProvider extends PluginProvider<Transport, TransportContext> {}
